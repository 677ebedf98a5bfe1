"""The cyclic garbage collector paused over a bounded piece of work that makes many long-lived, acyclic containers
(decoded JSON, figure rows, scored records): each collection it would trigger walks every object the process holds,
for cycles that work makes none of. Pure: no Django.

Measured (issue 34): an uncached Analysis tab page of a 200-entry board decodes 200 stored summaries (some 34,000
lists) and combines them; in the site's process the collections it triggered took 0.7 ms a summary, ten times the
decoding itself. The EPIC CLI scores a 6,661-sample file with it paused (~0.2 s of ~1.4 s CPU).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside; the collector as it was after. Nested or in several threads at once, the
    collector runs again once the outermost pause that found it running ends (reference counting frees as ever)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
