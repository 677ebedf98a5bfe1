"""A person's authoring time from their save times: gaps up to the idle limit count, longer ones start a session."""
from __future__ import annotations

import pytest

from devicelab.core.authoring import AuthoringTime, authoring_time, total


def test_gaps_within_the_idle_limit_count_and_longer_ones_start_a_session():
    # saves at 0, 60, 100 s; away for an hour; then 3700, 3730 s
    time = authoring_time([100, 0, 60, 3700, 3730], idle_gap_s=300)
    assert time == AuthoringTime(seconds=130, edits=5, sessions=2)
    assert time.minutes == pytest.approx(130 / 60)


def test_no_edit_or_one_edit_is_no_time():
    assert authoring_time([]) == AuthoringTime(0, 0, 0)
    assert authoring_time([5.0]) == AuthoringTime(0, 1, 1)


def test_a_gap_exactly_at_the_limit_counts_and_the_limit_must_be_positive():
    assert authoring_time([0, 300], idle_gap_s=300).seconds == 300
    with pytest.raises(ValueError, match="idle_gap_s"):
        authoring_time([0, 1], idle_gap_s=0)


def test_totals_add_people_up():
    assert total([AuthoringTime(10, 2, 1), AuthoringTime(5, 3, 2)]) == AuthoringTime(15, 5, 3)
