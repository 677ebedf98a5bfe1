"""A score that is not final yet, read from the details every scorer may write (`ScoringResult.details`):
`final` False says figures may still change (answers wait for a judge or for people), `undecided` how many items are
open, `range.overall` [low, high] the provisional overall between all open items wrong and all right.

A submission scored so is "awaiting judgement", its own state, never "Scored": the submission page, the user's
list, the API's `status` and the board's note all read it from here. Pure: no Django, no benchmark named.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AWAITING = "awaiting_judgement"
AWAITING_LABEL = "Awaiting judgement"


@dataclass(frozen=True)
class Provisional:
    """What is known of a score that is not final: the open items, and the provisional overall range."""

    open_items: int | None = None
    low: float | None = None
    high: float | None = None
    text_given: str = ""  # the scorer's own words, used where it gives no count

    @property
    def provisional_text(self) -> str:
        """"provisional 40.00–55.00", or "" when no range is known."""
        if self.low is None or self.high is None:
            return ""
        if self.low == self.high:
            return f"provisional {self.low:.2f}"
        return f"provisional {self.low:.2f}–{self.high:.2f}"

    def __str__(self) -> str:
        """"awaiting judgement (33 open items; provisional 40.00–55.00)": the state, the count and the range."""
        if self.open_items is None:
            head = self.text_given or "awaiting judgement"
            return f"{head} ({self.provisional_text})" if self.provisional_text else head
        parts = [f"{self.open_items} open item{'s' if self.open_items != 1 else ''}", self.provisional_text]
        return f"awaiting judgement ({'; '.join(p for p in parts if p)})"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def provisional_of(details: Any) -> Provisional | None:
    """The score's provisional state from its details, or None when it is final (no `final: false`)."""
    if not isinstance(details, dict) or details.get("final") is not False:
        return None
    undecided = details.get("undecided")
    ranges = details.get("range")
    overall = ranges.get("overall") if isinstance(ranges, dict) else None
    low, high = (overall if isinstance(overall, (list, tuple)) and len(overall) == 2 else (None, None))
    return Provisional(open_items=undecided if isinstance(undecided, int) and not isinstance(undecided, bool) else None,
                       low=_number(low), high=_number(high), text_given=str(details.get("status_text") or "")[:80])
