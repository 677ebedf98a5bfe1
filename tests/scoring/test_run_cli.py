"""`python -m scoring run` against the stand-in model over a real socket: EPIC and PLAN from a split's inputs
download, VGE through the hub's agent API (a live server); the files it writes score through the normal pipeline."""
from __future__ import annotations

import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token

from leaderboard.format_files import split_inputs_zip
from scoring import services
from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.cli import main
from scoring.models import Benchmark, ModelEntry, Split
from scoring.pipeline import submission_score
from scoring.standin import StandInModel
from tests.scoring.bench_splits import plan_split, vge_split


def epic_public_split(folder) -> Split:
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    epic_demo.write_layout(folder, epic_demo.make_split(17, per_leaf=1))
    split, report = epic_split_import(path=folder, split_name="pub", hidden=False)
    assert report.problems == []
    return split


def score_file(user, split, text: str, options: dict) -> dict:
    entry = ModelEntry(name="standin", slug="standin")
    submission = services.submission_create(
        user=user, split=split, model_entry=entry, options=options,
        uploaded_file=SimpleUploadedFile("run.jsonl", text.encode(), "application/jsonl"))
    submission_score(submission_id=submission.pk, worker="test")
    submission.refresh_from_db()
    assert submission.status == "scored", submission.error_message
    return {"overall": submission.score.overall, **submission.score.breakdown}


@pytest.mark.django_db
def test_epic_run_writes_raw_lines_the_scorer_reads(tmp_path, user, capsys) -> None:
    split = epic_public_split(tmp_path / "layout")
    archive = split_inputs_zip(split=split)
    out = tmp_path / "epic.jsonl"
    with StandInModel(api_key="sk-secret-123") as model:
        code = main(["run", "--benchmark", "epic-bench", "--split", "pub", "--inputs", str(archive),
                     "--base-url", model.base_url, "--model", "Qwen2.5-VL-7B", "--api-key-env", "STANDIN_KEY",
                     "--out", str(out)])
    assert code == 1  # no key given: every request refused with 401, nothing answered
    with StandInModel(api_key="sk-secret-123") as model:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("STANDIN_KEY", "sk-secret-123")
            code = main(["run", "--benchmark", "epic-bench", "--split", "pub", "--inputs", str(archive),
                         "--base-url", model.base_url, "--model", "Qwen2.5-VL-7B", "--api-key-env", "STANDIN_KEY",
                         "--out", str(out)])
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == split.samples.count() == model.answered and model.repeated() == 0
    assert all(set(line) == {"key", "images", "response"} for line in lines)
    card = json.loads((tmp_path / "epic.card.json").read_text())
    assert card["upload_options"] == {"raw": True, "coord_mode": "absolute"}  # Qwen2.5-VL's family: pixels
    assert "sk-secret-123" not in capsys.readouterr().out + out.read_text() + json.dumps(card)
    values = score_file(user, split, out.read_text(), card["upload_options"])
    assert "overall" in values


@pytest.mark.django_db
def test_plan_run_asks_the_b1_prompt_with_the_images(tmp_path, user) -> None:
    split = plan_split()
    split.hidden_ground_truth = False
    split.save()
    archive = split_inputs_zip(split=split)
    with zipfile.ZipFile(archive) as z:
        assert any(name.endswith(".png") for name in z.namelist())
    out = tmp_path / "plan.jsonl"
    with StandInModel() as model:
        assert main(["run", "--benchmark", "plan-bench", "--inputs", str(archive), "--base-url", model.base_url,
                     "--model", "m", "--k", "2", "--seed", "7", "--out", str(out)]) == 0
    files = [tmp_path / "plan-r1.jsonl", tmp_path / "plan-r2.jsonl"]
    assert all(len(f.read_text().splitlines()) == split.samples.count() for f in files)
    assert model.answered == 2 * split.samples.count()
    line = json.loads(files[0].read_text().splitlines()[0])
    assert set(line) == {"id", "prediction"}
    score_file(user, split, files[0].read_text(), {})


@pytest.mark.django_db(transaction=True)
def test_vge_run_plays_through_the_agent_api(tmp_path, user, live_server) -> None:
    split = vge_split()
    archive = split_inputs_zip(split=split)
    token = Token.objects.create(user=user)
    out = tmp_path / "vge.jsonl"
    with StandInModel() as model, pytest.MonkeyPatch.context() as env:
        env.setenv("EBH_TOKEN", token.key)
        assert main(["run", "--benchmark", "vge-bench", "--inputs", str(archive), "--base-url", model.base_url,
                     "--model", "m", "--hub", live_server.url, "--option", "history=3", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["task"] for line in lines] == ["tiny/t1", "tiny/t2"]
    assert all(line["outputs"] for line in lines)
    assert model.answered == sum(len(line["outputs"]) for line in lines)  # every turn asked once
    card = json.loads((tmp_path / "vge.card.json").read_text())
    assert card["upload_options"]["history"] == 3
    score_file(user, split, out.read_text(), card["upload_options"])
