"""The vge-bench scorer on split samples: per-line problems, missing tasks, breakdown and intervals."""
from __future__ import annotations

import json

import pytest

from scoring.benchmarks import plugin_for
from scoring.core.contract import ScorerInput, SubmissionRejected
from scoring.selectors import split_samples
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER


def run(tmp_path, split, lines):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return plugin_for("vge-bench").score_function()(ScorerInput(file_path=path, samples=split_samples(split=split), options={}))


@pytest.mark.django_db
def test_unknown_duplicate_and_malformed_lines_are_reported_per_line(tmp_path, tiny_split):
    lines = [
        json.dumps({"task": "tiny/t1", "outputs": []}),
        json.dumps({"task": "tiny/t1", "outputs": []}),
        json.dumps({"task": "tiny/t9", "outputs": []}),
        "{not json",
        json.dumps({"task": "tiny/t2", "outputs": "Press"}),
    ]
    with pytest.raises(SubmissionRejected) as info:
        run(tmp_path, tiny_split, lines)
    found = {(p.line, p.field): p.message for p in info.value.problems}
    assert "duplicate task 'tiny/t1' (first on line 1)" in found[(2, "task")]
    assert "unknown task 'tiny/t9'" in found[(3, "task")]
    assert "not valid JSON" in found[(4, None)]
    assert "list of strings" in found[(5, "outputs")]


@pytest.mark.django_db
def test_outputs_past_the_end_are_ignored_and_missing_tasks_fail(tmp_path, tiny_split):
    result = run(tmp_path, tiny_split, [json.dumps({"task": "tiny/t1", "outputs": [OPEN_DASH, PRESS_POWER, "Press(coord=[1,1])"]})])
    by_key = {s.key: s for s in result.samples}
    assert by_key["tiny/t1"].outcome == "success" and by_key["tiny/t1"].details["ignored_outputs"] == 1
    assert by_key["tiny/t2"].outcome == "missing" and by_key["tiny/t2"].components["turns"] == 0
    assert result.overall == result.breakdown["SR"] == 50.0
    assert result.breakdown["SPL"] == 50.0 and result.breakdown["GVPE"] == 1.0
    assert result.intervals["SR"][0] <= 50.0 <= result.intervals["SR"][1]


@pytest.mark.django_db
def test_binary_or_empty_files_are_rejected(tmp_path, tiny_split):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(SubmissionRejected, match="UTF-8"):
        plugin_for("vge-bench").score_function()(ScorerInput(file_path=path, samples=split_samples(split=tiny_split), options={}))
    with pytest.raises(SubmissionRejected, match="no episodes"):
        run(tmp_path, tiny_split, [""])
