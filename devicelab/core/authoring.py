"""A person's authoring time on a device, read from when they saved: the time between two consecutive edits by the
same person counts when it is at most `idle_gap_s` (they were at it); a longer gap starts a new session and counts
nothing. So it is a lower bound: the time before a session's first edit is not seen."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

IDLE_GAP_S = 300.0  # five minutes without a saved change: the person was away


@dataclass(frozen=True)
class AuthoringTime:
    seconds: float
    edits: int
    sessions: int

    @property
    def minutes(self) -> float:
        return self.seconds / 60


def authoring_time(times: Iterable[float], *, idle_gap_s: float = IDLE_GAP_S) -> AuthoringTime:
    """One person's edits on one device, as seconds since any fixed point (in any order)."""
    ordered = sorted(times)
    if idle_gap_s <= 0:
        raise ValueError(f"idle_gap_s must be positive, got {idle_gap_s}")
    seconds, sessions = 0.0, 1 if ordered else 0
    for before, after in zip(ordered, ordered[1:]):
        gap = after - before
        if gap <= idle_gap_s:
            seconds += gap
        else:
            sessions += 1
    return AuthoringTime(seconds=seconds, edits=len(ordered), sessions=sessions)


def total(times: Iterable[AuthoringTime]) -> AuthoringTime:
    """Several people's (or devices') times added up."""
    items = list(times)
    return AuthoringTime(seconds=sum(t.seconds for t in items), edits=sum(t.edits for t in items),
                         sessions=sum(t.sessions for t in items))
