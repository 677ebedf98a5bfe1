"""Metrics on episodes worked out by hand (see the comments for each number)."""
from __future__ import annotations

import math

import pytest

from scoring.benchmarks.vge.core.metrics import bootstrap_intervals, summarise
from scoring.benchmarks.vge.core.replay import replay
from scoring.core.stats import resample_indices
from tests.scoring.benchmarks.vge.core.conftest import make_task

OUTPUTS = [
    "Press(coord=[730, 180], params=[0])",  # 1 passive unlock; in power_button box (helpful), dist 0, w 1
    "Press(coord=[500, 500])",  # 2 door, not reactive: no_effect; in a box; dist 352.28, w 2
    "Press(coord=[580, 500])",  # 3 nothing: no_effect; dist 313.85, w 3
    "Switch_view(params=[left])",  # 4 switch
    "hello",  # 5 invalid: an operation
    "Switch_view(params=[front])",  # 6 switch
    "Press(coord=[730, 180], params=[0])",  # 7 success -> idle (goal 1 after 7 turns, C_opt 2); dist 0, w 4
    "Press(coord=[150, 950])",  # 8 success -> heating (goal 2 after 1 turn, C_opt 1); dist 0, w 1
]
D2 = math.hypot(200, 290)
D3 = math.hypot(120, 290)


def test_hand_computed_episode(engine):
    result = replay(engine, make_task(("idle", "heating")), OUTPUTS)
    m = result.metrics
    assert (m.success, m.goals_reached, m.turns, m.l_opt) == (True, 2, 8, 4)
    v = m.values
    assert v["SR"] == 100 and v["SSR"] == 100
    assert v["SPL"] == pytest.approx(100 * 4 / 8)
    assert v["State-F1"] == pytest.approx(100)  # visited {off, idle, heating} = canonical path states
    assert v["EIR"] == pytest.approx(80)  # 4 of 5 physical turns inside some box
    assert v["TIR"] == pytest.approx(60)  # turns 1, 7, 8
    assert v["VSPS"] == pytest.approx(1.0)  # 2 switch turns / 2 goals
    assert v["EER"] == pytest.approx(100 * 2 / 6)  # operations 1,2,3,5,7,8; effective 7, 8
    assert m.psr_hits == 1  # goal 2 took exactly C_opt = 1 turn
    assert m.dist_sum == pytest.approx(D2 + D3) and m.dist_count == 5
    assert m.wdist_sum == pytest.approx(2 * D2 + 3 * D3) and m.wdist_weight == 11


def test_summary_macro_and_pooled_with_an_empty_episode(engine):
    full = replay(engine, make_task(("idle", "heating")), OUTPUTS).metrics
    empty = replay(engine, make_task(("idle", "heating")), []).metrics
    assert empty.values["State-F1"] == pytest.approx(50)  # V={off}, G={off, idle, heating}
    assert empty.values["EIR"] is None and empty.values["VSPS"] is None and empty.values["EER"] is None
    s = summarise([full, empty])
    assert s["SR"] == 50 and s["SSR"] == 50 and s["SPL"] == pytest.approx(25)
    assert s["State-F1"] == pytest.approx(75)
    assert s["EIR"] == pytest.approx(80)  # the empty episode is left out
    assert s["GVPE"] == pytest.approx(1.0) and s["PSR"] == pytest.approx(50)
    assert s["AvgDist"] == pytest.approx((D2 + D3) / 5)
    assert s["AvgWDist"] == pytest.approx((2 * D2 + 3 * D3) / 11)


def test_eer_excludes_transitions_through_error_states_and_self_loops(engine):
    task = make_task(("heating",), start_state="idle")
    m = replay(engine, task, ["Pull(coord=[100, 600], params=[4])"]).metrics  # idle -> error -> off
    assert m.values["EER"] == 0


def test_bootstrap_intervals_are_seeded_and_contain_the_estimate(engine):
    eps = [replay(engine, make_task(("idle", "heating")), OUTPUTS[: k]).metrics for k in range(9)]
    a = bootstrap_intervals(eps, resample_indices=resample_indices, resamples=200, seed=3)
    b = bootstrap_intervals(eps, resample_indices=resample_indices, resamples=200, seed=3)
    assert a == b
    s = summarise(eps)
    assert a["SSR"][0] <= s["SSR"] <= a["SSR"][1]
