"""`finite`: the one rule for numbers that JSON and the boards cannot carry. EPIC's and VGE's cores each had a copy:
EPIC's turned NaN into None but raised TypeError on None; VGE's passed None through but kept NaN (and any
non-float), so a NaN would have reached JSON as the invalid token NaN."""
import json
import math

import pytest

from scoring.benchmarks.vge.core.engine import EpisodeState
from scoring.core.numbers import finite


def test_nan_is_none_where_the_copies_disagreed():
    assert finite(float("nan")) is None


def test_none_stays_none_where_epics_copy_raised():
    assert finite(None) is None


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_either_infinity_is_none(value):
    assert finite(value) is None


@pytest.mark.parametrize("value", [0, 3, -2.5, 1e308, 0.0])
def test_a_finite_number_comes_back_as_it_was(value):
    result = finite(value)
    assert result == value and type(result) is type(value)


def test_an_episode_with_an_unreachable_goal_writes_json_and_reads_back_infinite():
    state = EpisodeState(task="t", state="s", view="v", unlocked=False, goal_index=0, global_left=10.0,
                         local_left=5.0, turns=0, goal_since=0, goal_c_opt=math.inf, l_opt=4)
    data = state.as_dict()
    assert data["goal_c_opt"] is None and data["l_opt"] == 4
    assert EpisodeState.from_dict(json.loads(json.dumps(data, allow_nan=False))) == state
