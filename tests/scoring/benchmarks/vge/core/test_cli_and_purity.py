"""The CLI replays logs without Django; core modules import no Django."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scoring.cli import main as scoring_main
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

ROOT = Path(__file__).resolve().parents[5]


def test_core_modules_do_not_import_django():
    code = (
        "import sys, pkgutil, importlib, scoring.benchmarks.vge.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('scoring.benchmarks.vge.core.' + m.name)\n"
        "print('django' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_scores_logs_and_lists_tasks_without_episodes(tmp_path, capsys):
    devices = tmp_path / "devices"
    devices.mkdir()
    (devices / "tiny.json").write_text(json.dumps(TINY))
    tasks = tmp_path / "tasks.jsonl"
    t1, t2 = make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")
    tasks.write_text("\n".join(json.dumps(t.as_dict()) for t in (t1, t2)) + "\n")
    logs = tmp_path / "logs.jsonl"
    logs.write_text(
        json.dumps({"task": "tiny/t1", "outputs": ["Switch_view(coord=[800, 200])", "Press(coord=[200, 300], params=[0])", "x"]}) + "\n"
        + json.dumps({"task": "tiny/t1", "outputs": ["hello"]}) + "\n"
        + json.dumps({"task": "tiny/t9", "outputs": []}) + "\n"
    )
    out = tmp_path / "out.json"
    rc = scoring_main(["vge-bench", "--devices", str(devices), "--tasks", str(tasks), str(logs), "--output", str(out)])
    assert rc == 0
    result = json.loads(out.read_text())
    assert [e["task"] for e in result["episodes"]] == ["tiny/t1", "tiny/t1"]
    first = result["episodes"][0]
    assert (first["success"], first["goals_reached"], first["turns"], first["SPL"]) == (True, 1, 2, 100.0)
    assert result["summary"]["SR"] == 50.0 and result["summary"]["EIR"] == 100.0  # one physical turn, in a box
    assert result["tasks_without_episode"] == ["tiny/t2"]
    assert "line 3" in capsys.readouterr().err


def test_cli_reports_bad_device_with_path(tmp_path, capsys):
    bad = dict(TINY, initial_state="nope")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "t.jsonl").write_text("")
    (tmp_path / "l.jsonl").write_text("")
    rc = scoring_main(["vge-bench", "--devices", str(tmp_path / "d"), "--tasks", str(tmp_path / "t.jsonl"), str(tmp_path / "l.jsonl")])
    assert rc == 2 and "initial_state" in capsys.readouterr().err
