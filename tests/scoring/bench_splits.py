"""Small real splits of the three built-in benchmarks, and a way to upload a file to one, for tests that send
files through the scoring run or the pre-check of every benchmark alike."""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from scoring import services
from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.benchmarks.plan.core.demo import demo_items
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.models import Benchmark, ModelEntry, Split, Submission
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

BENCHMARKS = ("epic-bench", "plan-bench", "vge-bench")


@lru_cache(maxsize=1)
def _epic_samples() -> tuple[epic_demo.DemoSample, ...]:
    return tuple(epic_demo.make_split(17, per_leaf=1))


@lru_cache(maxsize=1)
def _plan_demo():
    return demo_items()


def epic_split(folder: Path) -> Split:
    """The 23 EPIC-Bench demo samples, one per leaf."""
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    epic_demo.write_layout(folder, _epic_samples())
    split, report = epic_split_import(path=folder, split_name="t", hidden=True)
    assert report.problems == []
    return split


def plan_split() -> Split:
    benchmark, _ = Benchmark.objects.get_or_create(slug="plan-bench", defaults={"name": "PLAN-Bench",
                                                                                 "scorer": "plan-bench"})
    split = Split.objects.create(benchmark=benchmark, name="t", hidden_ground_truth=True)
    demo = _plan_demo()
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
    return split


def vge_split() -> Split:
    """The hand-made tiny device with two tasks, tiny/t1 and tiny/t2."""
    device_upsert(data=copy.deepcopy(TINY), source="test")
    split = split_ensure(name="t", public=False)
    tasks = [make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")]
    tasks_into_split(tasks=tasks, split=split)
    return split


def split_of(benchmark: str, folder: Path) -> Split:
    return {"epic-bench": lambda: epic_split(folder), "plan-bench": plan_split, "vge-bench": vge_split}[benchmark]()


def good_line(benchmark: str) -> str:
    """One line the benchmark's scorer accepts for the split above (EPIC: a raw response line)."""
    if benchmark == "epic-bench":
        sample = _epic_samples()[0]
        return json.dumps(epic_demo.raw_line(sample, epic_demo.oracle_response(sample), prefix="/anywhere/"))
    if benchmark == "plan-bench":
        return json.dumps({"id": _plan_demo()[0].item.id, "prediction": "A"})
    return json.dumps({"task": "tiny/t1", "outputs": []})


def good_file(benchmark: str) -> bytes:
    """A whole file the scorer scores (EPIC: oracle raw responses for every sample)."""
    if benchmark == "epic-bench":
        lines = [epic_demo.raw_line(s, epic_demo.oracle_response(s), prefix="/anywhere/") for s in _epic_samples()]
    elif benchmark == "plan-bench":
        lines = [{"id": d.item.id, "prediction": d.item.answer} for d in _plan_demo()]
    else:
        lines = [{"task": "tiny/t1", "outputs": []}, {"task": "tiny/t2", "outputs": []}]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def options_for(benchmark: str) -> dict:
    return {"raw": True} if benchmark == "epic-bench" else {}


def past_the_intake():
    """Uploads stored as a file past the intake's pre-check bound is (PRECHECK_MAX_BYTES: such a file gets the
    plugin's sniff only, and the scorer says the rest), so that what the scorer does with a file the intake would
    refuse can be tested."""
    return override_settings(PRECHECK_MAX_BYTES=0)


def upload(user, split: Split, body: bytes, *, options: dict | None = None, name: str = "pred.jsonl") -> Submission:
    """A queued submission of `body` (its scoring job is not sent: the test runs it), stored past the intake's
    pre-check (`past_the_intake`)."""
    entry, _ = ModelEntry.objects.get_or_create(name="Model-F", defaults={"slug": "model-f"})
    with past_the_intake():
        return services.submission_create(user=user, split=split, model_entry=entry, options=options or {},
                                          uploaded_file=SimpleUploadedFile(name, body))
