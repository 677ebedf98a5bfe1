"""EPIC-Bench applies the toolkit's coordinate system of the model's family when the upload leaves coord_mode at auto
(uploads, hub-run evaluations and the CLI alike), says so on the submission page, and the pre-check warns when the
answers' ranges contradict the system they will be read in."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.core.cli import main as cli_main
from scoring.benchmarks.epic.core.fields import FAMILY_COORDINATES, model_family
from scoring.benchmarks.epic.core.raw import to_std_record
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import Benchmark, ModelEntry, SampleScore, Split, Submission
from scoring.precheck import submission_precheck

pytestmark = pytest.mark.django_db

ISSUE = ("The toolkit's family table (`fields.FAMILY_COORDINATES`) is offered but never applied: a "
         "Qwen3-VL/InternVL/Gemini upload answering in 0-1000 on a 640x480 image is read as pixels (IoU 0.68 -> 0). "
         "Apply the family's system from the model's metadata by default (the upload, the CLI and hub-run "
         "evaluations alike), show which system was used on the submission page, and warn in the pre-check when "
         "the answers' coordinate ranges contradict the chosen system.")
LEAVES = {"GroundDetection": 2, "AffordanceRegion": 2, "FeasiblePath_Ego": 1}


@pytest.fixture
def samples():
    return demo.make_split(3, per_leaf=0, sizes=((480, 640),), counts=LEAVES)


@pytest.fixture
def split(tmp_path, samples) -> Split:
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name="vga", hidden=False)
    assert report.problems == []
    return split


def thousandths(sample: demo.DemoSample) -> str:
    """The oracle's answer as Qwen3-VL gives it: boxes and points in thousandths of the width and height."""
    t = sample.truth
    boxes = [[x1 * 1000 / sample.width, y1 * 1000 / sample.height, x2 * 1000 / sample.width,
              y2 * 1000 / sample.height] for x1, y1, x2, y2 in t.get("boxes", [])]
    if t.get("points"):
        points = [[x * 1000 / sample.width, y * 1000 / sample.height] for x, y in t["points"]]
        return "```json\n" + json.dumps({"points": points}) + "\n```"
    return "```json\n" + json.dumps({"bounding_boxes": boxes}) + "\n```"


def body(lines) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def submit(user, split, data: bytes, *, model: str, options=None) -> Submission:
    entry, _ = ModelEntry.objects.get_or_create(name=model, defaults={"slug": model.lower().replace(".", "-")})
    submission = services.submission_create(user=user, split=split, model_entry=entry, options=options or {},
                                            uploaded_file=SimpleUploadedFile("pred.jsonl", data))
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    submission.refresh_from_db()
    return submission


def sample_scores(submission: Submission) -> dict[str, float]:
    return dict(SampleScore.objects.filter(submission=submission).values_list("sample__key", "score"))


def test_model_names_find_the_toolkits_families():
    assert model_family("Qwen3-VL-8B-Instruct") == "Qwen3-VL"
    assert model_family("Qwen/Qwen3-VL-235B-A22B") == "Qwen3-VL"
    assert model_family("qwen2.5_vl_72b") == "Qwen2.5-VL"
    assert model_family("InternVL3.5-38B") == "InternVL3.5" and model_family("InternVL3-8B") == "InternVL3"
    assert model_family("gemini-2.5-pro") == "Gemini" and model_family("Claude 3.7 Sonnet") == "Claude"
    for name in ("GPT-4o", "Qwen3-VLM", "InternVL30", "MyGeminiTune", "EPIC demo: box oracle", "", None):
        assert model_family(name) is None
    for family, _ in FAMILY_COORDINATES:  # every family of the table is found from its own name
        assert model_family(f"{family}-7B") == family


def test_a_qwen3_vl_upload_in_thousandths_is_read_in_its_familys_system(client, user, split, samples):
    """The issue: "a Qwen3-VL/InternVL/Gemini upload answering in 0-1000 on a 640x480 image is read as pixels
    (IoU 0.68 -> 0). Apply the family's system from the model's metadata by default ..., show which system was
    used on the submission page". Left at auto, a Qwen3-VL model's 0-1000 answers score as the same answers in
    pixels, sample by sample, and the page says the model's family decided."""
    pixels = submit(user, split, body(demo.raw_line(s, demo.oracle_response(s)) for s in samples),
                    model="Pixel-Model", options={"raw": True})
    qwen = submit(user, split, body(demo.raw_line(s, thousandths(s)) for s in samples),
                  model="Qwen3-VL-8B-Instruct", options={"raw": True})
    coordinates = qwen.score.details["coordinates"]
    assert coordinates == {"mode": "normalized_0_1000", "decided_by": "family", "family": "Qwen3-VL",
                           "declared_by_lines": 0, "resolved": {"normalized_0_1000": len(samples)}}
    assert qwen.options == {"raw": True}  # the uploader chose nothing
    expected, found = sample_scores(pixels), sample_scores(qwen)
    assert expected and all(found[key] == pytest.approx(value, abs=0.02) for key, value in expected.items())
    assert qwen.score.overall == pytest.approx(pixels.score.overall, abs=1)
    client.force_login(user)
    html = client.get(f"/submissions/{qwen.pk}/").content.decode()
    assert ('<dd id="upload-coordinates"><code>normalized_0_1000</code>, from the model\'s family (Qwen3-VL)'
            in html.replace("&#x27;", "'"))


def test_an_explicit_coord_mode_wins_over_the_family(user, split, samples):
    """The issue: the family applies "by default": a coord_mode chosen on upload still decides."""
    qwen = submit(user, split, body(demo.raw_line(s, demo.oracle_response(s)) for s in samples),
                  model="Qwen3-VL-8B-Instruct", options={"raw": True, "coord_mode": "absolute"})
    coordinates = qwen.score.details["coordinates"]
    assert coordinates["decided_by"] == "upload" and coordinates["resolved"] == {"absolute": len(samples)}
    assert "family" not in coordinates


def test_a_model_of_no_family_keeps_auto_detection(user, split, samples):
    other = submit(user, split, body(demo.raw_line(s, demo.oracle_response(s)) for s in samples),
                   model="GPT-4o", options={"raw": True})
    assert other.score.details["coordinates"]["decided_by"] == "auto"


def test_lines_that_declare_their_system_keep_it_under_a_family(user, split, samples):
    lines = [to_std_record(demo.raw_line(s, demo.oracle_response(s))) for s in samples]
    lines[0]["coordinate_system"] = "absolute"
    lines = [lines[0], *(to_std_record(demo.raw_line(s, thousandths(s))) for s in samples[1:])]
    qwen = submit(user, split, body(lines), model="Qwen3-VL-8B-Instruct")
    coordinates = qwen.score.details["coordinates"]
    assert coordinates["decided_by"] == "family" and coordinates["declared_by_lines"] == 1
    assert coordinates["resolved"] == {"absolute": 1, "normalized_0_1000": len(samples) - 1}


def test_the_cli_takes_the_model_or_its_family(tmp_path, samples):
    """The issue: "(the upload, the CLI and hub-run evaluations alike)"."""
    demo.write_layout(tmp_path, samples)
    pred = tmp_path / "qwen.jsonl"
    pred.write_bytes(body(to_std_record(demo.raw_line(s, thousandths(s), prefix=str(tmp_path) + "/"))
                          for s in samples))
    overall = {}
    for name, extra in (("auto", []), ("model", ["--model", "Qwen3-VL-8B-Instruct"]),
                        ("family", ["--family", "Qwen3-VL"]),
                        ("wins", ["--model", "Qwen3-VL-8B-Instruct", "--coord-mode", "absolute"])):
        out = tmp_path / f"{name}.json"
        assert cli_main([str(pred), "--output", str(out), *extra]) == 0
        payload = json.loads(out.read_text())
        overall[name] = payload["summary"]["overall"]["average_score"]
        assert payload["scorer"]["family"] == (None if name in ("auto", "wins") else "Qwen3-VL")
    assert overall["model"] == overall["family"]
    modes = {s["details"].get("localization", s["details"].get("path", {})).get("coordinate_system")
             for s in json.loads((tmp_path / "model.json").read_text())["samples"]}
    assert modes == {"normalized_0_1000"}


def precheck_notes(split, lines, *, model="", options=None) -> list[str]:
    result = submission_precheck(split=split, uploaded_file=SimpleUploadedFile("p.jsonl", body(lines)),
                                 options=options or {}, model=model)
    assert result.ok, result.problems
    return list(result.report.notes)


def test_the_precheck_warns_when_the_ranges_contradict_the_chosen_system(split, samples):
    """The issue: "warn in the pre-check when the answers' coordinate ranges contradict the chosen system"."""
    def fractions(s):
        t = s.truth
        if t.get("points"):
            return "```json\n" + json.dumps({"points": [[x / s.width, y / s.height] for x, y in t["points"]]}) + "\n```"
        return "```json\n" + json.dumps({"bounding_boxes": [[x1 / s.width, y1 / s.height, x2 / s.width, y2 / s.height]
                                                            for x1, y1, x2, y2 in t["boxes"]]}) + "\n```"
    in_fractions = [to_std_record(demo.raw_line(s, fractions(s))) for s in samples]
    in_pixels = [to_std_record(demo.raw_line(s, demo.oracle_response(s))) for s in samples]
    in_thousandths = [to_std_record(demo.raw_line(s, thousandths(s))) for s in samples]
    [note] = precheck_notes(split, in_fractions, model="Qwen3-VL-8B-Instruct")
    assert "read as normalized_0_1000 (from the model's family (Qwen3-VL))" in note and "within 0-1" in note
    [note] = precheck_notes(split, in_pixels, options={"coord_mode": "normalized_0_1"})
    assert "read as normalized_0_1 (from the upload's coord_mode)" in note and "above the 1 of" in note
    [note] = precheck_notes(split, in_fractions, options={"coord_mode": "absolute"})
    assert "read as absolute" in note
    assert precheck_notes(split, in_thousandths, model="Qwen3-VL-8B-Instruct") == []
    assert precheck_notes(split, in_fractions) == []  # auto reads them as fractions: nothing contradicts


def test_the_precheck_applies_the_model_family_given_on_its_page_and_api(client, split, samples):
    """The issue: "warn in the pre-check when the answers' coordinate ranges contradict the chosen system": the
    pre-check takes the model's name (page and API) and says which system it applied and why, so the same 0-1000
    file reads as the scorer will read it."""
    in_thousandths = body([to_std_record(demo.raw_line(s, thousandths(s))) for s in samples])

    def api(**extra):
        response = client.post("/api/submissions/precheck/", {
            "benchmark": "epic-bench", "split": split.name,
            "file": SimpleUploadedFile("p.jsonl", in_thousandths), **extra})
        assert response.status_code == 200 and response.json()["ok"] is True, response.json()
        return response.json()

    family = api(model="Qwen/Qwen3-VL-8B-Instruct")
    [applied] = family["applied"]
    assert applied["setting"] == "coordinate system" and applied["value"] == "normalized_0_1000"
    assert "family Qwen3-VL, from the model name 'Qwen/Qwen3-VL-8B-Instruct'" in applied["why"]
    assert family["notes"] == []  # nothing contradicts the family's system

    auto = api()
    [applied] = auto["applied"]
    assert applied["value"] == "auto" and "per sample from its own numbers" in applied["why"]
    assert "no model name given" in applied["why"]
    [note] = auto["notes"]
    assert "Auto detection will read 5 line(s) whose coordinates lie within 0-1000" in note
    assert "else as absolute pixels" in note and "give its name or choose coord_mode normalized_0_1000" in note

    declared = api(model="Qwen3-VL-8B", options=json.dumps({"coord_mode": "absolute"}))
    assert declared["applied"][0]["value"] == "absolute" and "the upload's coord_mode" in declared["applied"][0]["why"]

    # The page: a model name field, and the system it applied in the result.
    page = client.post(reverse("submission-precheck"), {"split": split.pk, "model_name": "gemini-2.5-pro",
                                                  "file": SimpleUploadedFile("p.jsonl", in_thousandths)})
    html = page.content.decode()
    assert page.status_code == 200 and 'name="model_name"' in html and 'name="coord_mode"' in html
    assert ("Coordinate system: <code>normalized_0_1000</code> (family Gemini, from the model name "
            "&#x27;gemini-2.5-pro&#x27;") in html
    page = client.post(reverse("submission-precheck"), {"split": split.pk, "model_name": "My-VLM", "coord_mode": "auto",
                                                  "file": SimpleUploadedFile("p.jsonl", in_thousandths)})
    assert "the model name &#x27;My-VLM&#x27; shows none of the toolkit&#x27;s families" in page.content.decode()


def test_the_precheck_schema_documents_the_model_name_and_what_was_applied():
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    assert "model" in components["PrecheckInputRequest"]["properties"]
    assert components["PrecheckOutput"]["properties"]["applied"]["items"]["$ref"].endswith("/AppliedOutput")
