"""Provenance keys on every score (issue 29): identical re-uploads recognised and stored once; the keys on the
submission page, in the API, in every export row and in the provenance file (hidden splits withheld); `python -m
scoring verify` re-deriving a demo score ("same") and naming the key of a tampered provenance file; the site's own
check; the row types' badges and filter on boards, the board API and exports."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.core.provenance import KEYS, WITHHELD, ground_truth_sha256
from scoring.models import ModelEntry, Score, Split, Submission
from scoring.selectors import split_samples

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def _samples() -> tuple[demo.DemoSample, ...]:
    return tuple(demo.make_split(29, per_leaf=1))


def _split(tmp_path: Path, *, name: str, hidden: bool) -> Split:
    layout = tmp_path / f"layout-{name}"
    demo.write_layout(layout, _samples())
    split, report = epic_split_import(path=layout, split_name=name, hidden=hidden)
    assert report.problems == []
    return split


@pytest.fixture
def public_split(tmp_path) -> Split:
    return _split(tmp_path, name="prov", hidden=False)


@pytest.fixture
def hidden_split(tmp_path) -> Split:
    return _split(tmp_path, name="provh", hidden=True)


def demo_body() -> bytes:
    """The demo's noisy baseline: raw responses, a score between 0 and 100."""
    rng = np.random.default_rng(29)
    return "\n".join(json.dumps(demo.raw_line(s, demo.noisy_response(s, rng))) for s in _samples()).encode()


def upload(user, split: Split, body: bytes, *, name="Model-P", options=None, visibility="public") -> Submission:
    entry = ModelEntry.objects.filter(name=name).first() or ModelEntry(name=name, slug=name.lower(), owner=user)
    submission = services.submission_create(
        user=user, split=split, model_entry=entry, options={"raw": True} if options is None else options,
        uploaded_file=SimpleUploadedFile("pred.jsonl", body), visibility=visibility)
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    submission.refresh_from_db()
    return submission


# Identical re-upload ---------------------------------------------------------------------------------------------

def test_an_identical_reupload_is_recognised_and_its_file_stored_once(public_split, user, other_user, client,
                                                                     settings):
    body = demo_body()
    first = upload(user, public_split, body)
    again = upload(user, public_split, body)
    # Stored under its sha256: the second points to the first's file, nothing written twice.
    assert first.file.name == again.file.name == (
        f"private/submissions/sha256/{first.sha256[:2]}/{first.sha256}.jsonl")
    assert first.sha256 == hashlib.sha256(body).hexdigest()
    stored = [p for p in Path(settings.MEDIA_ROOT, "private").rglob("*") if p.is_file()]
    assert len(stored) == 1

    client.force_login(user)
    page = client.get(f"/submissions/{again.pk}/").content.decode()
    assert "identical to your submission" in page and f'href="/submissions/{first.pk}/">#{first.pk}</a>' in page
    api = client.get(f"/api/submissions/{again.pk}/").json()
    assert api["identical_to"] == [first.pk] and api["sha256"] == first.sha256
    listed = {row["id"]: row for row in client.get("/api/submissions/mine/").json()}
    assert listed[again.pk]["identical_to"] == [first.pk] and listed[first.pk]["identical_to"] == [again.pk]

    # Another user's identical file shares the stored copy but is never named to them.
    theirs = upload(other_user, public_split, body, name="Model-Q")
    assert theirs.file.name == first.file.name
    client.force_login(other_user)
    assert client.get(f"/api/submissions/{theirs.pk}/").json()["identical_to"] == []
    assert "identical to your submission" not in client.get(f"/submissions/{theirs.pk}/").content.decode()


# Keys on every score ---------------------------------------------------------------------------------------------

def test_a_score_is_stamped_with_its_provenance_keys(public_split, user, settings):
    settings.HUB_VERSION = "ebh-test-29"
    submission = upload(user, public_split, demo_body(), options={"raw": True, "coord_mode": "absolute"})
    keys = Score.objects.get(submission=submission).provenance
    assert list(KEYS) == ["file_sha256", "file_size", "scorer_version", "split_version", "ground_truth_sha256",
                          "options", "hub_version"]
    assert keys["file_sha256"] == hashlib.sha256(demo_body()).hexdigest()
    assert keys["file_size"] == len(demo_body())
    assert keys["scorer_version"] == submission.scorer_version != ""
    assert keys["split_version"] == public_split.version == 1
    truth = ground_truth_sha256(split_samples(split=public_split))
    assert keys["ground_truth_sha256"] == truth == Split.objects.get(pk=public_split.pk).ground_truth_sha256
    assert keys["options"]["coordinate_system"] == "absolute"
    assert keys["options"]["coordinates_decided_by"] == "upload"
    assert keys["options"]["file_reading"] == "raw responses (reference parser)"
    assert keys["hub_version"] == "ebh-test-29"
    assert keys["upload_options"] == {"raw": True, "coord_mode": "absolute"} and keys["model"] == "Model-P"


def test_provenance_on_the_page_the_api_every_export_row_and_the_file(public_split, user, client):
    submission = upload(user, public_split, demo_body())
    keys = Score.objects.get(submission=submission).provenance
    client.force_login(user)

    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    for key in KEYS:
        assert f'data-key="{key}"' in page
    assert keys["file_sha256"] in page and keys["ground_truth_sha256"] in page
    assert f'href="/submissions/{submission.pk}/provenance.json"' in page

    api = client.get(f"/api/submissions/{submission.pk}/").json()
    assert api["provenance"] == keys and api["type"] == "upload"

    client.logout()
    document = client.get(f"/submissions/{submission.pk}/provenance.json")
    assert document.status_code == 200 and "attachment" in document["Content-Disposition"]
    found = document.json()
    assert found["format"] == "ebh-provenance/1" and found["submission"] == submission.pk
    assert all(found[key] == keys[key] for key in KEYS)
    assert found["figures"]["overall"] == pytest.approx(submission.score.overall)
    assert set(found["figures"]["readings"]) == {"strict"}

    exported = client.get(f"/leaderboard/epic-bench/export.csv?split={public_split.name}").content.decode()
    rows = list(csv.DictReader(io.StringIO(exported)))
    row = next(r for r in rows if r["submission"] == str(submission.pk))
    assert row["type"] == "upload" and row["file_sha256"] == keys["file_sha256"]
    assert row["scorer_version"] == keys["scorer_version"] and row["split_version"] == "1"
    assert row["ground_truth_sha256"] == keys["ground_truth_sha256"] and row["hub_version"] == keys["hub_version"]
    assert json.loads(row["options"]) == keys["options"]
    as_json = client.get(f"/leaderboard/epic-bench/export.json?split={public_split.name}").json()
    json_row = next(r for r in as_json["rows"] if r["submission"] == submission.pk)
    assert json_row["file_sha256"] == keys["file_sha256"] and json_row["type"] == "upload"
    board_api = client.get(f"/api/leaderboards/epic-bench/?split={public_split.name}").json()
    api_row = next(r for r in board_api["rows"] if r["submission"] == submission.pk)
    assert api_row["provenance"]["file_sha256"] == keys["file_sha256"] and api_row["type"] == "upload"


def test_a_hidden_splits_provenance_file_leaks_nothing(hidden_split, user, other_user, curator, client):
    public = upload(user, hidden_split, demo_body())
    private = upload(user, hidden_split, demo_body(), name="Model-R", visibility="private")
    truth_hash = Split.objects.get(pk=hidden_split.pk).ground_truth_sha256
    assert truth_hash and Score.objects.get(submission=public).provenance["ground_truth_sha256"] == truth_hash
    rle = [s.ground_truth["mask"]["counts"] for s in split_samples(split=hidden_split)
           if isinstance(s.ground_truth.get("mask"), dict) and s.ground_truth["mask"].get("counts")]

    for who in (None, other_user, user):
        if who is None:
            client.logout()
        else:
            client.force_login(who)
        response = client.get(f"/submissions/{public.pk}/provenance.json")
        assert response.status_code == 200
        text = response.content.decode()
        # A hash over a tiny hidden split's answers would confirm guesses of them: curators only.
        assert response.json()["ground_truth_sha256"] == WITHHELD and truth_hash not in text
        assert not any(counts in text for counts in rle[:20])
        # The strict reading tells more of a hidden ground truth than the headline: not in the file for them.
        strict = Score.objects.get(submission=public).readings.get("strict", {})
        if strict.get("tells_more"):
            assert "strict" not in response.json()["figures"]["readings"]
    client.force_login(user)
    assert client.get(f"/api/submissions/{public.pk}/").json()["provenance"]["ground_truth_sha256"] == WITHHELD
    assert truth_hash not in client.get(f"/submissions/{public.pk}/").content.decode()
    # A private score's provenance: its submitter and curators only.
    client.force_login(other_user)
    assert client.get(f"/submissions/{private.pk}/provenance.json").status_code == 404
    client.logout()
    assert client.get(f"/submissions/{private.pk}/provenance.json").status_code == 404
    client.force_login(curator)
    assert client.get(f"/submissions/{private.pk}/provenance.json").json()["ground_truth_sha256"] == truth_hash
    # The board and its exports withhold it too.
    exported = client.get(f"/leaderboard/epic-bench/export.csv?split={hidden_split.name}").content.decode()
    assert truth_hash not in exported and WITHHELD in exported


def test_a_paper_row_has_no_provenance_file(public_split, client):
    entry = ModelEntry.objects.create(name="Paper-Model", slug="paper-model")
    reported = Submission.objects.create(model_entry=entry, split=public_split, source=Submission.Source.REPORTED,
                                         status=Submission.Status.SCORED)
    Score.objects.create(submission=reported, overall=50.0)
    response = client.get(f"/submissions/{reported.pk}/provenance.json")
    assert response.status_code == 404 and "reported in a paper" in response.content.decode()


# verify ----------------------------------------------------------------------------------------------------------

def _run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run([sys.executable, "-m", "scoring", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_verify_says_same_on_a_demo_score_and_names_the_key_of_a_tampered_one(public_split, user, client,
                                                                              tmp_path):
    submission = upload(user, public_split, demo_body())
    prediction = tmp_path / "pred.jsonl"
    prediction.write_bytes(demo_body())
    split_dir = tmp_path / "split"
    call_command("export_split_dir", "epic-bench", public_split.name, str(split_dir), stdout=io.StringIO())
    document = client.get(f"/submissions/{submission.pk}/provenance.json").json()
    good = tmp_path / "provenance.json"
    good.write_text(json.dumps(document))

    same = _run_cli("verify", str(good), str(prediction), "--split-dir", str(split_dir))
    assert same.returncode == 0, same.stderr
    assert same.stdout.strip().splitlines()[-1] == "same"
    assert f"file_sha256: {submission.sha256}" in same.stdout  # the CLI prints the same keys

    # The CLI's own provenance of the file: the same keys the site stamped.
    written = tmp_path / "cli-provenance.json"
    made = _run_cli("provenance", str(prediction), "--benchmark", "epic-bench", "--split-dir", str(split_dir),
                    "--split", public_split.name, "--option", "raw=true", "--model", "Model-P", "-o", str(written))
    assert made.returncode == 0, made.stderr
    cli = json.loads(written.read_text())
    for key in ("file_sha256", "file_size", "scorer_version", "split_version", "ground_truth_sha256", "options"):
        assert cli[key] == document[key], key
    assert cli["figures"]["overall"] == pytest.approx(document["figures"]["overall"])

    # A figure edited in the file: refused, the key named.
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**document, "figures": {**document["figures"],
                                                            "overall": document["figures"]["overall"] + 5}}))
    found = _run_cli("verify", str(tampered), str(prediction), "--split-dir", str(split_dir))
    assert found.returncode == 1
    assert "figures.overall: the provenance says" in found.stdout
    assert "same" not in found.stdout.splitlines()[-1]

    # An option and the ground-truth hash edited: each named.
    edited = {**document, "options": {**document["options"], "coordinate_system": "normalized_0_1"},
              "ground_truth_sha256": "0" * 64}
    tampered.write_text(json.dumps(edited))
    found = _run_cli("verify", str(tampered), str(prediction), "--split-dir", str(split_dir))
    assert found.returncode == 1
    assert "options.coordinate_system" in found.stdout and "ground_truth_sha256" in found.stdout

    # Another file than the one the provenance names.
    other = tmp_path / "other.jsonl"
    other.write_bytes(demo_body().replace(b'"response"', b'"response" ', 1))
    found = _run_cli("verify", str(good), str(other), "--split-dir", str(split_dir))
    assert found.returncode == 1 and "file_sha256" in found.stdout

    # Not a provenance file: refused naming the JSON path.
    tampered.write_text(json.dumps({**document, "split_version": "one"}))
    found = _run_cli("verify", str(tampered), str(prediction), "--split-dir", str(split_dir))
    assert found.returncode == 2 and "$.split_version" in found.stderr


def test_the_site_checks_a_provenance_file_against_the_stored_score(public_split, user, client, tmp_path):
    submission = upload(user, public_split, demo_body())
    document = client.get(f"/submissions/{submission.pk}/provenance.json").json()
    verify = "/api/submissions/provenance/verify/"
    answer = client.post(verify, data=json.dumps(document), content_type="application/json").json()
    assert answer == {"same": True, "submission": submission.pk, "differences": []}

    tampered = {**document, "scorer_version": "epic-0.0", "figures": {
        **document["figures"], "breakdown": {**document["figures"]["breakdown"], "TL": 99.5}}}
    answer = client.post(verify, data=json.dumps(tampered), content_type="application/json").json()
    assert answer["same"] is False
    assert [d["key"] for d in answer["differences"]] == ["scorer_version", "figures.breakdown.TL"]
    bad = client.post(verify, data=json.dumps({"format": "x"}), content_type="application/json")
    assert bad.status_code == 400 and "$.format" in bad.content.decode()

    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    out = io.StringIO()
    call_command("verify_provenance", str(path), "--rescore", stdout=out)
    assert out.getvalue().strip() == f"submission #{submission.pk}: same"
    path.write_text(json.dumps(tampered))
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("verify_provenance", str(path), stdout=out)
    assert "scorer_version" in out.getvalue() and "figures.breakdown.TL" in out.getvalue()


# Row types -------------------------------------------------------------------------------------------------------

def test_a_curator_marks_a_row_reproduced_only_when_the_hub_gets_the_same(public_split, user, curator, client):
    submission = upload(user, public_split, demo_body())
    client.force_login(user)
    client.post(f"/submissions/{submission.pk}/reproduce/")
    submission.refresh_from_db()
    assert submission.source == Submission.Source.UPLOAD  # not a curator: nothing changes

    client.force_login(curator)
    client.post(f"/submissions/{submission.pk}/reproduce/")
    submission.refresh_from_db()
    assert submission.source == Submission.Source.REPRODUCED

    # A score that no longer matches its file (the stored figures moved): refused, the key named, nothing changed.
    other = upload(user, public_split, demo_body(), name="Model-S")
    Score.objects.filter(submission=other).update(overall=1.0)
    response = client.post(f"/submissions/{other.pk}/reproduce/", follow=True)
    assert "figures.overall" in response.content.decode()
    other.refresh_from_db()
    assert other.source == Submission.Source.UPLOAD


def test_the_row_type_filter_on_boards_the_api_and_exports(public_split, user, client):
    rows = {}
    for name, source in (("Model-U", "upload"), ("Model-V", "reproduced"), ("Model-W", "hub-run")):
        sub = upload(user, public_split, demo_body(), name=name)
        Submission.objects.filter(pk=sub.pk).update(source=source)
        rows[source] = sub.pk
    board = f"/leaderboard/epic-bench/?split={public_split.name}"
    page = client.get(board).content.decode()
    for source, label in (("upload", "self-reported"), ("reproduced", "reproduced"), ("hub-run", "hub-run")):
        assert f'data-row-type="{source}">{label}</span>' in page
    only = client.get(board + "&type=reproduced").content.decode()
    assert f'data-submission="{rows["reproduced"]}"' in only
    assert f'data-submission="{rows["upload"]}"' not in only and f'data-submission="{rows["hub-run"]}"' not in only

    api = client.get(f"/api/leaderboards/epic-bench/?split={public_split.name}&type=upload,hub-run").json()
    assert sorted(r["submission"] for r in api["rows"]) == sorted([rows["upload"], rows["hub-run"]])
    assert {r["type"] for r in api["rows"]} == {"upload", "hub-run"}
    exported = client.get(f"/leaderboard/epic-bench/export.csv?split={public_split.name}&type=hub-run")
    lines = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert [int(r["submission"]) for r in lines] == [rows["hub-run"]]
    as_json = client.get(f"/leaderboard/epic-bench/export.json?split={public_split.name}&type=reported").json()
    assert all(r["type"] == "reported" for r in as_json["rows"])

    bad = client.get(f"/api/leaderboards/epic-bench/?split={public_split.name}&type=paper")
    assert bad.status_code == 400 and "type" in bad.content.decode()
    model_page = client.get("/models/model-v/").content.decode()
    assert 'data-row-type="reproduced"' in model_page


def test_plugins_state_their_protocol_options(settings):
    from scoring.benchmarks import plugin_for

    settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = "http://127.0.0.1:9/v1", "judge-m"
    plan = plugin_for("plan-bench").provenance_options_of({}, "")
    assert plan["judge_model"] == "judge-m" and plan["cascade"] == ["rules", "llm-judge", "people"]
    assert plan["judge_prompts"].endswith(plan["judge_prompts_hash"]) and plan["rules"]
    vge = plugin_for("vge-bench").provenance_options_of({"lambda": 3, "history": 2, "perturbation": "swap"}, "")
    assert vge["interaction_budget"] == 3 and vge["history"] == "2" and vge["perturbation"] == "swap"
    assert vge["instruction"] == "original" and vge["feedback"].startswith("engine")
    epic = plugin_for("epic-bench").provenance_options_of({}, "Qwen2.5-VL-7B")
    assert epic["coordinates_decided_by"] == "family" and epic["file_reading"] == "std_format"
