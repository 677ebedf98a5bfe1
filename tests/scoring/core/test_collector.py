"""The cyclic collector paused over a piece of work and left as it was after it, nested and on errors."""
from __future__ import annotations

import gc

import pytest

from scoring.core.collector import collector_paused


def test_the_collector_is_off_inside_and_back_on_after_even_on_an_error():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()


def test_a_collector_already_off_stays_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
