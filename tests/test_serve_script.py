"""`scripts/serve.sh` (what `make run` starts): the beat scheduler is a process of its own, so killing a worker
cannot orphan it, and stopping the script stops every process it started (issue 13, defect 11).

The script runs from a copy of the tree whose `.venv/bin/celery` and `.venv/bin/uvicorn` are stand-ins that record
their arguments and sleep, so the test checks the processes the script manages without starting the site."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STAND_IN = """#!/usr/bin/env bash
echo "$$ $(basename "$0") $*" >>"$SERVE_TEST_LOG"
exec sleep 300
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a stand-in that has exited but not been reaped yet (its parent, the script, is gone) is a zombie
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # reaped between the two looks
        return False
    return stat.split(") ", 1)[1][0] != "Z"


def wait_until(predicate, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def serve_tree(tmp_path):
    tree = tmp_path / "site"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "serve.sh", tree / "scripts" / "serve.sh")
    bin_dir = tree / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("celery", "uvicorn"):
        (bin_dir / name).write_text(STAND_IN)
        (bin_dir / name).chmod(0o755)
    return tree


def started(log: Path) -> list[tuple[int, list[str]]]:
    if not log.exists():
        return []
    rows = [line.split() for line in log.read_text().splitlines() if line.strip()]
    return [(int(row[0]), row[1:]) for row in rows]


def test_beat_runs_as_its_own_process_and_stops_with_the_script(serve_tree, tmp_path):
    log = tmp_path / "started.log"
    script = subprocess.Popen(
        ["bash", str(serve_tree / "scripts" / "serve.sh"), "127.0.0.1", "0"],
        env=dict(os.environ, SERVE_TEST_LOG=str(log)),
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, as a terminal gives it
    )
    try:
        # Given the script has started the workers, beat and the web server
        assert wait_until(lambda: any(args[0] == "uvicorn" for _, args in started(log))), started(log)
        assert wait_until(lambda: len(started(log)) >= 4), started(log)
        processes = started(log)
        celery = [(pid, args[1:]) for pid, args in processes if args[0] == "celery"]
        beats = [pid for pid, args in celery if "beat" in args]
        workers = [pid for pid, args in celery if "worker" in args]
        assert len(beats) == 1 and not any("--beat" in args or "-B" in args for _, args in celery), processes
        assert len(workers) == 2 and beats[0] not in workers
        web = [args for _, args in processes if args[0] == "uvicorn"]
        assert len(web) == 1 and "config.asgi:application" in web[0] and "--workers" not in web[0], web

        # When a worker dies without warning, beat is unaffected (it is not the worker's child)
        os.kill(workers[0], signal.SIGKILL)
        assert wait_until(lambda: not alive(workers[0]))
        assert alive(beats[0])

        # When the script is stopped as Ctrl+C does (SIGINT to its process group)
        os.killpg(script.pid, signal.SIGINT)
        script.wait(timeout=60)  # 30 s ran out once beside the fault suite; alone: < 1 s

        # Then nothing it started is left running
        assert wait_until(lambda: not any(alive(pid) for pid, _ in processes)), [
            (pid, args) for pid, args in processes if alive(pid)
        ]
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
        for pid, _ in started(log):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
