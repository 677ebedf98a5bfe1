"""The hand-made tiny device stored in the database, with two tasks in a vge-bench split."""
from __future__ import annotations

import copy

import pytest

from simulator import services
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

OPEN_DASH = "Thinking: the panel. Action: Switch_view(coord=[800, 200])"
PRESS_POWER = "Action: Press(coord=[200, 300], params=[0])"
BACK_FRONT = "Action: Switch_view(params=[front])"
PRESS_START = "Action: Press(coord=[150, 950], params=[0])"


@pytest.fixture
def tiny_split(db):
    services.device_upsert(data=copy.deepcopy(TINY), source="test")
    split = services.split_ensure(name="dev", public=True)
    tasks = [make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")]
    services.tasks_into_split(tasks=tasks, split=split)
    return split
