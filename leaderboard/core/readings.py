"""Which figures a board row shows under a reading (a plugin's `Reading`), and why a row has none.

Rules: the headline's reading (the plugin's first, or key "") shows each score's own figures, except a score from a
legacy version made under another reading; another reading shows the figure set stored with the score under its key,
or a legacy score's own figures made under it. Reported rows are the papers' figures under the headline's reading.
A figure set that would tell a submitter more of a hidden ground truth (`tells_more`) is not shown on such a split.
A row without figures is blank (so unranked) and says why. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scoring.core.plugin import Reading


@dataclass(frozen=True)
class Figures:
    overall: float | None
    breakdown: Mapping[str, Any] = field(default_factory=dict)
    intervals: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""  # why there are none (empty when there are)


def legacy_reading(readings: Sequence[Reading], scorer_version: str) -> Reading | None:
    """The reading a score of a legacy scorer version was made under, or None (a current version)."""
    return next((r for r in readings if scorer_version in r.legacy_versions), None)


def figures_under(*, readings: Sequence[Reading], key: str, reported: bool, scorer_version: str,
                  own: Figures, stored: Mapping[str, Any], hidden: bool) -> Figures:
    """The figures a row shows under the reading `key` ("" : the headline's). `own`: the score's own overall,
    breakdown and intervals; `stored`: its `Score.readings`; `hidden`: the split's ground truth is hidden."""
    if not readings:
        return own
    headline = readings[0]
    reading = headline if key in ("", headline.key) else next((r for r in readings if r.key == key), None)
    if reading is None:
        return Figures(None, note=f"no reading '{key}'")
    if reported:
        if reading is headline:
            return own
        return Figures(None, note=f"reported in the paper: {headline.label} only")
    made_under = legacy_reading(readings, scorer_version)
    if made_under is not None:
        if made_under is reading:
            return own
        return Figures(None, note=f"scored by {scorer_version} under {made_under.label} only; not shown here "
                                  "until it is scored again")
    if reading is headline:
        return own
    found = stored.get(reading.key) if isinstance(stored, Mapping) else None
    if not isinstance(found, Mapping):
        return Figures(None, note=f"scored by {scorer_version or 'an earlier scorer'}: no figures under {reading.label}")
    if hidden and found.get("tells_more"):
        return Figures(None, note=(f"withheld: on a split with hidden ground truth, {reading.label} of this upload "
                                   "would tell more of the ground truth than its headline figures"))
    breakdown = found.get("breakdown")
    intervals = found.get("intervals")
    return Figures(found.get("overall"), breakdown if isinstance(breakdown, Mapping) else {},
                   intervals if isinstance(intervals, Mapping) else {})


def reading_sentence(readings: Sequence[Reading], key: str) -> str:
    """What the protocol line adds about the figures shown: which reading they are ("" without readings)."""
    if not readings:
        return ""
    headline = readings[0]
    reading = headline if key in ("", headline.key) else next((r for r in readings if r.key == key), headline)
    if reading is headline:
        others = ", ".join(f"?reading={r.key} for {r.label}" for r in readings[1:])
        return (f"Figures shown: {reading.label} (the headline, which ranks the board): {reading.description}."
                + (f" Switch with {others}." if others else ""))
    return (f"Figures shown: {reading.label}, a second figure set ranked by itself: {reading.description}. Rows "
            f"without it are blank and unranked. The headline is {headline.label}.")
