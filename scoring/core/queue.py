"""Queue arithmetic, pure: the median of a day's scoring times and the estimated wait of a queued job.

A wait is estimated as the work ahead (each running job's remaining median time, each queued job's median time, then
the job's own) shared by the workers alive; with no worker, or no scoring time to go by, there is no estimate.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import median


def median_seconds(durations: Iterable[float]) -> float | None:
    """The median of the durations (seconds), None when there are none; negative ones (clock skew) are left out."""
    kept = [d for d in durations if d >= 0]
    return float(median(kept)) if kept else None


def estimated_wait_seconds(
    *,
    own: str,
    queued_ahead: Mapping[str, int],
    running_elapsed: Iterable[tuple[str, float]],
    medians: Mapping[str, float | None],
    workers: int,
) -> float | None:
    """Seconds until a job of kind `own` is scored: `queued_ahead` jobs per kind, `running_elapsed` (kind, seconds
    it has run) for the jobs being scored, the median scoring time per kind (a kind without one takes the median of
    the kinds that have one). None with no worker alive or no median at all."""
    known = [m for m in medians.values() if m is not None]
    if workers <= 0 or not known:
        return None
    fallback = float(median(known))

    def typical(kind: str) -> float:
        value = medians.get(kind)
        return fallback if value is None else value

    work = sum(max(0.0, typical(kind) - elapsed) for kind, elapsed in running_elapsed)
    work += sum(typical(kind) * count for kind, count in queued_ahead.items())
    return work / workers + typical(own)
