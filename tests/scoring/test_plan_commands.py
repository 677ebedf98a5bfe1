"""import_plan and make_demo_plan through call_command, against the real database and media folder."""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from scoring.models import Sample, Split, Submission

pytestmark = pytest.mark.django_db


def test_import_plan_jsonl_with_images_folder(tmp_path: Path, settings) -> None:
    (tmp_path / "pc-1").mkdir()
    (tmp_path / "pc-1" / "0.jpg").write_bytes(b"jpeg-0")
    (tmp_path / "pc-1" / "1.jpg").write_bytes(b"jpeg-1")
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "pc-1", "dimension": "Temporal Reasoning", "subtask": "PC", "type": "open",
                                 "images": ["pc-1/0.jpg", "pc-1/1.jpg"], "question": "How many?", "answer": "3",
                                 "answer_hint": "Also accept: three"}) + "\n")
    out = io.StringIO()
    call_command("import_plan", str(items), "--split", "dev", stdout=out)
    sample = Sample.objects.get(split__benchmark__slug="plan-bench", split__name="dev", key="pc-1")
    assert sample.task == "PC" and sample.category == "Temporal Reasoning" and sample.group == "open"
    assert sample.ground_truth == {"answer": "3", "answer_hint": "Also accept: three"}
    # a split with hidden ground truth keeps its images out of public media, under MEDIA_ROOT/hidden/
    assert sample.inputs["images"][1].startswith("hidden/plan-bench/dev/")
    assert (Path(settings.MEDIA_ROOT) / sample.inputs["images"][1]).read_bytes() == b"jpeg-1"
    assert "1 items created" in out.getvalue()
    call_command("import_plan", str(items), "--split", "dev", stdout=out)
    assert Sample.objects.filter(key="pc-1").count() == 1


def test_import_plan_tsv_with_base64_images(tmp_path: Path, settings) -> None:
    image = base64.b64encode(b"png-bytes").decode()
    tsv = tmp_path / "PLAN.tsv"
    tsv.write_text("index\timage\tquestion\tA\tB\tanswer\tcategory\tl2-category\n"
                   f"1\t{image}\tWhere?\tleft\tright\tB\tSpR\tSpatial Cognition\n")
    call_command("import_plan", str(tsv), "--split", "tsv", stdout=io.StringIO())
    sample = Sample.objects.get(split__name="tsv", key="1")
    assert sample.inputs["options"] == {"A": "left", "B": "right"}
    assert sample.inputs["images"][0].startswith("hidden/plan-bench/")
    assert (Path(settings.MEDIA_ROOT) / sample.inputs["images"][0]).read_bytes() == b"png-bytes"


def test_import_plan_reports_bad_lines(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "subtask": "OO", "type": "open", "answer": "1"}\n{"id": "a", "subtask": "OO", "type": "open", "answer": "1"}\n')
    with pytest.raises(CommandError, match="line 2"):
        call_command("import_plan", str(items))


def test_make_demo_plan_is_idempotent() -> None:
    call_command("make_demo_plan", stdout=io.StringIO())
    call_command("make_demo_plan", stdout=io.StringIO())
    split = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    assert not split.hidden_ground_truth and split.samples.count() == 48
    submissions = Submission.objects.filter(split=split)
    assert submissions.count() == 2 and all(s.model_entry.kind == "baseline" for s in submissions)
    oracle = submissions.get(model_entry__slug="plan-demo-oracle")
    assert oracle.status == "scored" and oracle.score.overall == 100.0
    assert submissions.get(model_entry__slug="plan-demo-random").score.details["final"] is False
