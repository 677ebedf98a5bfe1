"""`python -m simulator render-states`: every (device, state, view) rendered to a file, the index lists them,
and the share of state pairs a player can tell apart is printed; the check itself finds look-alike pairs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PIL import Image

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.render_check import check_device

ROOT = Path(__file__).resolve().parents[5]


def test_render_states_command_on_a_few_demo_devices(tmp_path):
    out = tmp_path / "renders"
    run = subprocess.run(
        [sys.executable, "-m", "simulator", "render-states", "--library", "demo", "--out", str(out),
         "--devices", "air-fryer-01,car-key-01,lighter-02"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "air-fryer-01" in run.stdout and "21/ 21 pairs distinguishable (100.0%)" in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "total: 34/34 state pairs distinguishable (100.0%) over 3 devices"
    index = json.loads((out / "index.json").read_text())
    files = index["files"]
    assert {f["device"] for f in files} == {"air-fryer-01", "car-key-01", "lighter-02"}
    fryer = [f for f in files if f["device"] == "air-fryer-01"]
    assert len(fryer) == 7 * 8  # seven states, eight views (no dashboard)
    for entry in fryer[:3]:
        path = out / entry["file"]
        assert path == out / entry["device"] / entry["state"] / f"{entry['view']}.png"
        assert Image.open(path).size == (512, 512)
    assert index["pairs"] == index["distinguishable"] == 34


def test_unknown_device_is_refused(tmp_path):
    run = subprocess.run([sys.executable, "-m", "simulator", "render-states", "--out", str(tmp_path), "--devices", "toaster-09"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2 and "no such demo device: toaster-09" in run.stderr


def test_the_check_finds_states_that_look_alike_and_names_declared_ones(tiny_data):
    tiny_data["states"]["idle"]["look"] = {"components": {"door": {"open": 1}}}
    tiny_data["states"]["warm"]["look"] = {"components": {"knob": {"position": 1}}}
    tiny_data["components"]["knob"]["look"] = {"shape": "dial", "detents": 3}
    report = check_device(load_device(tiny_data), invisible=[("heating", "done", "only the timer inside differs")])
    alike = {frozenset(p[:2]): p[2] for p in report.alike}
    assert report.pairs == 15
    # off, heating, done and error have no look of their own: 6 pairs alike, one of them declared
    assert set(alike) == {frozenset(p) for p in [("off", "heating"), ("off", "done"), ("off", "error"), ("heating", "done"),
                                                  ("heating", "error"), ("done", "error")]}
    assert alike[frozenset(("heating", "done"))] == "only the timer inside differs"
    assert report.distinguishable == 9
