from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scoring.benchmarks.plan.core.cli import main
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer

from .conftest import write_jsonl


def test_cli_writes_summary_and_samples(items_file: Path, tmp_path: Path) -> None:
    pred = write_jsonl(tmp_path / "pred.jsonl", [
        {"id": "pc-1", "prediction": "Three."},
        {"id": "oo-1", "prediction": "A"},
        {"id": "dp-1", "prediction": "first open the fridge, get things, close it"},
    ])
    out = tmp_path / "out.json"
    assert main(["--items", str(items_file), str(pred), "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    summary = result["summary"]
    assert summary["undecided"] == 1 and summary["overall"] is None and summary["range"]["overall"] == [33.3333, 66.6667]
    assert summary["by_dimension"]["temporal_reasoning"] == 100.0 and summary["by_subtask"]["OO"] == 0.0
    assert result["samples"][0] == {**result["samples"][0], "id": "pc-1", "correct": True, "decided_by": "rule"}
    assert result["samples"][1]["extracted"] == "A" and result["samples"][2]["correct"] is None


def test_cli_with_judge_url_decides_the_rest(items_file: Path, tmp_path: Path) -> None:
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "dp-1", "prediction": "open fridge then take milk and take butter, close fridge"}])
    out = tmp_path / "out.json"
    with LocalJudgeServer() as server:
        code = main(["--items", str(items_file), str(pred), "--output", str(out), "--judge-url", server.base_url, "--judge-model", "local"])
    assert code == 0
    result = json.loads(out.read_text())
    sample = result["samples"][2]
    assert sample["decided_by"] == "model" and sample["judge"] == "local" and sample["raw_judge_output"] in ("True", "False")
    assert result["summary"]["undecided"] == 0 and result["summary"]["overall"] is not None


def test_cli_reports_unknown_ids_with_line_and_exit_code(items_file: Path, tmp_path: Path, capsys) -> None:
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "pc-1", "prediction": "3"}, {"id": "zz", "prediction": "3"}])
    assert main(["--items", str(items_file), str(pred), "--output", str(tmp_path / "o.json")]) == 1
    assert "line 2" in capsys.readouterr().err


def test_python_m_scoring_dispatches_to_plan_bench(items_file: Path, tmp_path: Path) -> None:
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "pc-1", "prediction": "3"}])
    out = tmp_path / "o.json"
    run = subprocess.run([sys.executable, "-m", "scoring", "plan-bench", "--items", str(items_file), str(pred),
                          "--output", str(out)], capture_output=True, text=True, cwd=Path(__file__).parents[5])
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text())["summary"]["items"] == 3


def test_cli_judges_with_a_prompt_file_and_stamps_its_version(items_file: Path, tmp_path: Path, capsys) -> None:
    from scoring.benchmarks.plan.core.protocol import load_prompt_file

    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({"open_system": "EXACT", "open_user": "{answer} {hint} {output}",
                                   "choice_system": "EXACT-C", "choice_user": "{question} {options} {output}"}))
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "dp-1", "prediction": "open fridge, milk, butter, close"}])
    out = tmp_path / "out.json"
    with LocalJudgeServer() as server:
        code = main(["--items", str(items_file), str(pred), "--output", str(out), "--judge-url", server.base_url,
                     "--judge-model", "local", "--judge-prompts", str(prompts)])
        assert code == 0 and "EXACT" in json.dumps(server.requests[0])
    version = load_prompt_file(prompts.read_text(), source="x").version
    assert json.loads(out.read_text())["samples"][2]["prompt_version"] == version
    prompts.write_text("{}")
    assert main(["--items", str(items_file), str(pred), "--output", str(out), "--judge-prompts", str(prompts)]) == 1
    assert "prompts.json: 'open_system' is missing" in capsys.readouterr().err
