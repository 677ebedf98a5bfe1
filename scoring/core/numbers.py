"""Numbers on their way to JSON and to the boards.

JSON has no NaN or infinity, and a board cell cannot show one: `finite` is the one rule for both, shared by every
benchmark (EPIC's and VGE's cores each had their own, and they disagreed on NaN).
"""
from __future__ import annotations

import math


def finite(value: float | None) -> float | None:
    """The value itself when it is a finite number; None for None, NaN and either infinity."""
    if value is None or not math.isfinite(value):
        return None
    return value
