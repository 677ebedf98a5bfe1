"""The allow-list of what a viewer may see of a scored sample, and the built-in benchmarks' lists (no database)."""
from __future__ import annotations

import pytest

from scoring.benchmarks import plugins
from scoring.benchmarks.epic.plugin import PLUGIN as EPIC
from scoring.benchmarks.plan.plugin import PLUGIN as PLAN
from scoring.benchmarks.vge.plugin import PLUGIN as VGE
from scoring.core.columns import overall_only
from scoring.core.disclosure import NOT_SUBMITTED, detail_keys, disclosed, sample_disclosed
from scoring.core.plugin import BenchmarkPlugin

UNKNOWN = BenchmarkPlugin(slug="tiny", title="Tiny", scorer="x:y", board=overall_only("tiny"))


def test_allowed_keys_are_kept_at_any_depth_and_lists_are_walked():
    value = {"line": 3, "trace": [{"turn": 1, "state_after": "on"}, {"turn": 2}], "task": {"goals": ["on"]}}
    assert disclosed(value, frozenset({"line", "trace", "turn"})) == {"line": 3, "trace": [{"turn": 1}, {"turn": 2}]}
    assert disclosed(value, None) is value


def test_curators_see_all_hidden_splits_show_the_plugins_list_and_unknown_benchmarks_nothing():
    assert detail_keys(VGE, hidden=True, curator=True) is None
    assert detail_keys(VGE, hidden=True, curator=False) == VGE.hidden_split_detail_keys
    assert detail_keys(UNKNOWN, hidden=True, curator=False) == frozenset()
    assert detail_keys(None, hidden=True, curator=False) == frozenset()
    # public splits: their ground truth is published, so today's pages stay as they are
    assert detail_keys(VGE, hidden=False, curator=False) is None and detail_keys(None, hidden=False, curator=False) is None


def test_a_sample_never_submitted_shows_nothing_on_a_hidden_split():
    details, components = {"line": None, "trace": []}, {"SR": 0.0}
    keys = VGE.hidden_split_detail_keys
    assert sample_disclosed(details, components, outcome=NOT_SUBMITTED, keys=keys, hidden=True) == ({}, {})
    assert sample_disclosed(details, components, outcome="failed", keys=keys, hidden=True) == (details, components)
    assert sample_disclosed(details, components, outcome=NOT_SUBMITTED, keys=None, hidden=True) == (details, components)


@pytest.mark.parametrize("plugin, secret", [
    (VGE, "task"), (VGE, "goals"), (VGE, "start_state"), (VGE, "lambda"), (VGE, "l_opt"), (VGE, "final"),
    (VGE, "state_before"), (VGE, "state_after"), (VGE, "entered"), (VGE, "goal_reached"), (VGE, "goal_c_opt"),
    (VGE, "component"), (VGE, "global_left"), (VGE, "local_left"),
    (EPIC, "gt_count"), (EPIC, "gt"), (EPIC, "gt_empty"), (EPIC, "gt_shape"), (EPIC, "gt_problems"),
    (EPIC, "gt_problem"), (EPIC, "gt_error"), (EPIC, "exact"), (EPIC, "start_goal_distance"), (EPIC, "max_segment"),
    (EPIC, "weight_count"), (EPIC, "weight_localization"),
    (PLAN, "answer"), (PLAN, "answer_hint"), (PLAN, "raw_judge_output"), (PLAN, "note"), (PLAN, "fingerprint"),
    (PLAN, "judgement_key"),
])
def test_built_in_lists_leave_out_every_key_that_carries_ground_truth(plugin, secret):
    assert secret not in plugin.hidden_split_detail_keys


def test_every_built_in_benchmark_declares_its_list():
    assert all(p.hidden_split_detail_keys for p in plugins() if p.slug in ("epic-bench", "plan-bench", "vge-bench"))
