"""The hand-made tiny device stored in the database, with two tasks in a vge-bench split."""
from __future__ import annotations

import copy

import pytest

from simulator.agent_writer import writer
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

OPEN_DASH = "Thinking: the panel. Action: Switch_view(coord=[800, 200])"
PRESS_POWER = "Action: Press(coord=[200, 300], params=[0])"
BACK_FRONT = "Action: Switch_view(params=[front])"
PRESS_START = "Action: Press(coord=[150, 950], params=[0])"


@pytest.fixture
def tiny_split(db):
    device_upsert(data=copy.deepcopy(TINY), source="test")
    split = split_ensure(name="dev", public=True)
    tasks = [make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")]
    tasks_into_split(tasks=tasks, split=split)
    return split


@pytest.fixture(autouse=True)
def _agent_writer_stopped():
    """The agent writer's thread outlives a test with its database connection: stop it after each test (closing the
    connection), so the test database can be dropped; the next job starts a new one."""
    yield
    writer.stop()
