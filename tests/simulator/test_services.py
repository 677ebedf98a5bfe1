"""Installing the demo library and importing devices made elsewhere."""
from __future__ import annotations

import copy
import json

import pytest
from django.core.management import CommandError, call_command

from scoring.models import Sample
from simulator.models import Device, Task
from tests.scoring.benchmarks.vge.core.conftest import TINY


@pytest.mark.django_db
def test_make_demo_vge_is_idempotent_and_links_one_sample_per_task():
    call_command("make_demo_vge")
    counts = (Device.objects.count(), Task.objects.count(), Sample.objects.filter(split__name="demo").count())
    call_command("make_demo_vge")
    assert (Device.objects.count(), Task.objects.count(), Sample.objects.filter(split__name="demo").count()) == counts
    # 52 library devices and their tasks, one sample each; the test phase's 26 tasks (split demo-test, one per
    # category); plus the practice panel and its task, in no split
    assert Sample.objects.filter(split__name="demo-test", split__hidden_ground_truth=True).count() == 26
    assert counts[0] == 52 + 1 and counts[1] == counts[2] + 26 + 1 and counts[2] >= 3 * 52
    assert Task.objects.get(task_id="practice-panel/learn").sample is None
    sample = Sample.objects.get(key="microwave-01/t1")
    assert sample.split.benchmark.slug == "vge-bench" and not sample.split.hidden_ground_truth
    assert sample.ground_truth["device"] == "microwave-01" and sample.ground_truth["task"]["id"] == "microwave-01/t1"
    assert Task.objects.get(task_id="microwave-01/t1").sample == sample


@pytest.mark.django_db
def test_import_vge_copies_images_and_loads_tasks(tmp_path, settings):
    data = copy.deepcopy(TINY)
    data["views"]["front"]["image"] = "front.png"
    (tmp_path / "tiny.json").write_text(json.dumps(data))
    (tmp_path / "front.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    task = {"id": "tiny/x", "device": "tiny", "start_state": "off", "start_view": "front", "goals": ["idle"],
            "instructions": ["Turn it on."]}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    call_command("import_vge", str(tmp_path), "--split", "imported")
    device = Device.objects.get(device_id="tiny")
    assert (settings.MEDIA_ROOT / device.images_dir / "front.png").read_bytes().endswith(b"fake")
    assert Sample.objects.get(key="tiny/x").split.name == "imported"


@pytest.mark.django_db
def test_import_vge_rejects_a_bad_device_with_the_field_path(tmp_path):
    data = copy.deepcopy(TINY)
    data["components"]["start"]["boxes"]["front"] = [0, 0, 2000, 10]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"bad\.json: components\.start\.boxes\.front: box .* outside 0\.\.1000"):
        call_command("import_vge", str(tmp_path))
    assert not Device.objects.exists()
