"""`python -m scoring epic-bench`: output schema, GT inline or by path, --raw, --workers, --compat, bad input."""
from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.core.cli import main, write_result
from scoring.benchmarks.epic.core.raw import to_std_record

from .helpers import record, rect, rle, tl_gt


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    root = tmp_path_factory.mktemp("epic")
    split = demo.make_split(5, per_leaf=1, with_images=False)
    demo.write_layout(root, split)
    return root, split


def run(tmp_path: Path, lines, *flags) -> tuple[int, dict]:
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))
    out = tmp_path / "out.json"
    code = main([str(pred), "--output", str(out), *flags])
    return code, (json.loads(out.read_text()) if out.exists() else {})


def test_std_format_with_relative_gt_paths(tmp_path, layout):
    root, split = layout
    lines = [to_std_record(demo.raw_line(s, demo.oracle_response(s))) for s in split]
    code, out = run(tmp_path, lines, "--gt-root", str(root))
    assert code == 0
    assert set(out["summary"]) == {"overall", "by_category", "by_type", "by_group"}
    assert set(out["summary"]["overall"]) >= {"average_score", "total_processed", "num_invalid_response"}
    assert len(out["summary"]["by_type"]) == 23 and len(out["summary"]["by_group"]) == 9
    assert [r["index"] for r in out["samples"]] == list(range(23))
    assert set(out["samples"][0]) >= {"index", "task_category", "task_type", "score", "score_details", "error",
                                       "invalid_response"}
    assert out["summary"]["overall"]["num_invalid_response"] == 0
    assert out["scorer"]["mode"] == "default"


def test_the_garbage_collector_is_left_as_it_was(tmp_path, layout):
    """The CLI scores with the cyclic collector off (a speed-up) and puts it back, on or off, even on failure."""
    root, split = layout
    lines = [to_std_record(demo.raw_line(s, demo.oracle_response(s))) for s in split[:3]]
    assert gc.isenabled()
    assert run(tmp_path, lines, "--gt-root", str(root))[0] == 0 and gc.isenabled()
    assert main([str(tmp_path / "missing.jsonl")]) == 1 and gc.isenabled()
    gc.disable()
    try:
        assert run(tmp_path, lines, "--gt-root", str(root))[0] == 0 and not gc.isenabled()
    finally:
        gc.enable()


def test_raw_responses_and_workers_give_the_same_scores(tmp_path, layout):
    root, split = layout
    lines = [demo.raw_line(s, demo.oracle_response(s), prefix=str(root) + "/") for s in split] * 12
    _, one = run(tmp_path, lines, "--raw")
    _, two = run(tmp_path, lines, "--raw", "--workers", "2")
    assert [r["score"] for r in one["samples"]] == [r["score"] for r in two["samples"]]
    assert one["summary"] == two["summary"] and one["scorer"]["parser"] == "reference"


def test_inline_gt_and_compat(tmp_path):
    gt = tl_gt([rect(100, 200, (10, 29), (10, 49))], 0)
    rec = record("TargetLocalization", "Color", loc=["No Valid Response"], count=[0],
                 **gt["mask_annotation"], **gt["text_annotation"])
    _, default = run(tmp_path, [rec])
    _, compat = run(tmp_path, [rec], "--compat")
    assert default["samples"][0]["score"] == pytest.approx(0.7 * 0 + 0.3 * 1)
    assert compat["samples"][0]["score"] == pytest.approx(1.0)  # the toolkit's B1 reading
    assert compat["scorer"]["mode"] == "compat"


def test_bad_lines_are_reported_with_line_numbers(tmp_path, capsys):
    rec = record("Navigation", "GroundDetection", loc=[[0, 0, 5, 5]],
                 masklet_ground=[rle(rect(10, 10, (0, 4), (0, 4)))])
    code, out = run(tmp_path, [rec, "{not json", "[1, 2]", "", rec])
    assert code == 0
    assert [p["line"] for p in out["problems"]] == [2, 3]  # the two samples themselves are fine
    assert [r["line"] for r in out["samples"]] == [1, 5]
    assert "line 2" in capsys.readouterr().err
    code, _ = run(tmp_path, [rec, "{not json"], "--strict")
    assert code == 1


def test_empty_or_unusable_file_is_rejected(tmp_path, capsys):
    assert run(tmp_path, [""])[0] == 1
    assert run(tmp_path, ["{bad", "7"])[0] == 1
    assert "rejected" in capsys.readouterr().err


def test_missing_gt_file_is_a_data_error(tmp_path):
    rec = record("TargetLocalization", "Color", loc=[], count=[0], gt_path=str(tmp_path / "nope_mask_rle.json"))
    _, out = run(tmp_path, [rec])
    row = out["samples"][0]
    assert row["gt_error"] and not row["invalid_response"] and "not found" in row["details"]["gt_problem"]


def test_dropped_items_unknown_tasks_and_gt_errors_are_listed_with_line_and_field(tmp_path):
    gt = {"masklet_ground": [rle(rect(10, 10, (0, 4), (0, 4)))]}
    lines = [
        record("Navigation", "GroundDetection", loc=[["x", 0, 5, 5], [0, 0, 5, 5]], **gt),
        record("Navigation", "Teleport", loc=[]),
        record("Navigation", "GroundDetection", loc=[], masklet_ground=[{"size": [10, 10], "counts": "!!"}]),
    ]
    _, out = run(tmp_path, lines)
    found = {(p["line"], p["field"]) for p in out["problems"]}
    assert found == {(1, "formatted_response_localization"), (2, "task_type"), (3, "ground_truth")}


def test_result_file_holds_the_payload_as_json_dumps_would_one_row_a_line(tmp_path, layout):
    """The streamed writer gives the same document as one json.dumps of the whole payload (NaN, infinities,
    non-ASCII text and an empty sample list included), with each sample row on a line of its own."""
    root, split = layout
    lines = [to_std_record(demo.raw_line(s, demo.oracle_response(s))) for s in split]
    _, out = run(tmp_path, lines, "--gt-root", str(root))
    out["problems"] = [{"message": "kein gültiger Wert ✓", "line": 3}]
    out["samples"][0]["details"] = {"odd": [float("nan"), float("inf"), -float("inf")], "text": "é\n\"x\""}
    path = tmp_path / "nested" / "result.json"
    write_result(path, out)
    text = path.read_text(encoding="utf-8")
    assert json.dumps(json.loads(text), ensure_ascii=False, sort_keys=True) == json.dumps(out, ensure_ascii=False,
                                                                                         sort_keys=True)
    assert list(json.loads(text)) == list(out)  # keys in the payload's order, samples last
    rows = [line for line in text.splitlines() if line.startswith('  {"index": ')]
    assert len(rows) == len(out["samples"]) == 23
    write_result(path, {**out, "samples": []})
    assert json.loads(path.read_text(encoding="utf-8"))["samples"] == []


def test_gt_paths_that_are_not_files_go_to_the_next_root_and_bad_json_is_said(tmp_path):
    from scoring.benchmarks.epic.core.pipeline import GTResolver

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "gt.json").mkdir()  # a folder where the file is looked for first
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "gt.json").write_text(json.dumps({"text_annotation": {"count": [1]}}))
    (tmp_path / "b" / "bad.json").write_text("{not json")
    resolver = GTResolver((str(tmp_path / "a"), str(tmp_path / "b")))
    found, problem = resolver.load({"ground_truth": {"gt_json_path": ["gt.json"]}})
    assert found == {"text_annotation": {"count": [1]}} and problem is None
    found, problem = resolver.load({"ground_truth": {"gt_json_path": ["bad.json"]}})
    assert found is None and problem.startswith("ground truth bad.json is not valid JSON")
    big = {"mask_annotation": {"masklet_path": [{"size": [900, 900], "counts": "0" * 300_000}]}}
    (tmp_path / "b" / "big.json").write_text(json.dumps(big))  # longer than the first read
    assert resolver.load({"ground_truth": {"gt_json_path": ["big.json"]}}) == (big, None)
    for missing in ("nope.json", "a\x00b.json", "gt.json/inner.json"):
        found, problem = resolver.load({"ground_truth": {"gt_json_path": [missing]}})
        assert found is None and problem == f"ground truth file {missing} not found"


def test_scoring_starts_without_opencv_scipy_or_the_analysis_code():
    """`python -m scoring epic-bench` imports what scoring needs only: the Exo split labels the target's runs itself
    (no OpenCV), least distances are pairwise (no scipy), and the registry's plugin contract names the Analysis
    tab's types for annotations only (its code, and hashlib's OpenSSL, load where they are used)."""
    import subprocess
    import sys

    code = ("import sys, scoring.cli, scoring.benchmarks; scoring.benchmarks.plugin_for('epic-bench'); "
            "import scoring.benchmarks.epic.core.cli; "
            "print(sorted(m for m in ('cv2', 'scipy', 'scoring.core.analysis', '_hashlib') if m in sys.modules))")
    root = Path(__file__).resolve().parents[5]
    shown = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_python_m_scoring_starts_numpy_without_a_blas_thread_pool():
    """`python -m scoring` sets OPENBLAS_NUM_THREADS=1 (unless given) before a benchmark's code imports numpy: the
    registry and CLI modules import none, and numpy then starts no BLAS thread (their spinning cost ~5% of the CPU
    of scoring a full EPIC split)."""
    import os
    import subprocess
    import sys

    code = ("import os, sys, scoring.cli; loaded = 'numpy' in sys.modules; scoring.cli.single_threaded_blas(); "
            "import numpy; print(loaded, os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))")
    root = Path(__file__).resolve().parents[5]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    shown = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["False", "1", "1"]
