"""VGEBench's summaries read the human entries on the split's board (their tasks, and their ids as the summaries'
stamp) in reads that do not grow with the hub: no join of each submission to every model entry, no join of each
per-sample row to its submission for an ordering a set does not need (issue 34, the worker's cost at 100×)."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.benchmarks.vge.selectors import vge_analysis_summary_context, vge_analysis_summary_stamp
from scoring.models import Sample, Submission
from tests.leaderboard.conftest import board_test_split, make_entry, make_scored

pytestmark = pytest.mark.django_db


def test_the_stamp_and_the_human_keys_name_the_human_entries_on_the_board_only():
    split = board_test_split("vge-bench")
    other = board_test_split("epic-bench")
    for i in range(4):
        Sample.objects.create(split=split, key=f"t{i}", position=i, task=f"task-{i}")
        Sample.objects.create(split=other, key=f"o{i}", position=i, task=f"task-{i}")
    person = make_scored(split, make_entry("Person A", kind="human"), [1.0, 0.0])  # played t0 and t1
    second = make_scored(split, make_entry("Person B", kind="human"), [1.0, 1.0, 0.0])  # t0 to t2
    private = make_scored(split, make_entry("Person C", kind="human"), [1.0] * 4)
    Submission.objects.filter(pk=private.pk).update(visibility=Submission.Visibility.PRIVATE)
    make_scored(split, make_entry("A model"), [1.0] * 4)  # not a person
    make_scored(other, make_entry("Person D", kind="human"), [1.0] * 4)  # another benchmark's board

    with CaptureQueriesContext(connection) as queries:
        stamp = vge_analysis_summary_stamp(split)
        context = vge_analysis_summary_context(split, public=False)

    assert stamp == f"humans:{person.pk},{second.pk}"
    assert context["human_keys"] == ["t0", "t1", "t2"]
    joins = [q["sql"] for q in queries if 'JOIN "scoring_modelentry"' in q["sql"]
             or ('FROM "scoring_samplescore"' in q["sql"] and 'JOIN "scoring_submission"' in q["sql"])]
    assert joins == []


def test_no_human_entry_no_per_sample_read():
    split = board_test_split("vge-bench")
    Sample.objects.create(split=split, key="t0", position=0)
    make_scored(split, make_entry("A model"), [1.0])
    with CaptureQueriesContext(connection) as queries:
        assert vge_analysis_summary_stamp(split) == "humans:"
        assert vge_analysis_summary_context(split, public=False)["human_keys"] == []
    assert not any('FROM "scoring_samplescore"' in q["sql"] for q in queries)
