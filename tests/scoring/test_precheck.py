"""The anonymous format pre-check checks what the scorer will check, with bounded work: each built-in benchmark
reads the file and matches it to the split as its scorer does; a benchmark without a pre-check gets every line read
with the readers' shared decoding; no file is read past its split's line bound or over PRECHECK_MAX_BYTES; a file's
faults are problems in a 200 answer, never a 500."""
from __future__ import annotations

import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.errors import SubmissionError
from scoring.models import Submission
from tests.scoring.bench_splits import BENCHMARKS, good_file, good_line, split_of, upload
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db

NESTED = b'{"task": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
HUGE_INTEGER = b'{"id": ' + b"9" * 5000 + b"}\n"
# A million lines each well-formed on its own (a prediction for an unknown id), so that reading them goes on
MILLION_LINES = b"".join(b'{"id": "%d", "prediction": "A"}\n' % n for n in range(1_000_000))


def precheck(client, split, body: bytes, name: str = "pred.jsonl", *, raw: bool | None = None) -> dict:
    """The API's answer; EPIC's good files are raw responses, so its raw option is on unless the test says."""
    raw = split.benchmark.slug == "epic-bench" if raw is None else raw
    response = client.post("/api/submissions/precheck/", {
        "benchmark": split.benchmark.slug, "split": split.name, "file": SimpleUploadedFile(name, body),
        **({"raw": "true"} if raw else {})})
    assert response.status_code == 200, response.content[:500]
    return response.json()


@pytest.fixture
def generic_split(dummy_benchmark):
    """A split of the test suite's dummy benchmark, which declares no pre-check of its own."""
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="t")
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_good_file_passes_the_scorers_own_check(client, tmp_path, benchmark):
    split = split_of(benchmark, tmp_path)
    body = precheck(client, split, good_file(benchmark))
    samples = split.samples.count()
    assert {"ok": True, "checked_by": "scorer", "problems": [], "missing": [], "missing_count": 0}.items() <= body.items()
    assert body["records"] == body["matched"] == body["samples"] == samples
    assert body["file_format"] == {"epic-bench": "raw responses", "plan-bench": "plan-pred/1 JSON Lines",
                                   "vge-bench": "vge-log/1 JSON Lines"}[benchmark]


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_nested_json_and_a_huge_integer_are_problems_of_their_line(client, tmp_path, benchmark):
    split = split_of(benchmark, tmp_path)
    for bad in (NESTED, HUGE_INTEGER):
        body = precheck(client, split, good_line(benchmark).encode() + b"\n" + bad)
        assert body["ok"] is False and body["checked_by"] == "scorer"
        assert any(p["line"] == 2 and "not valid JSON" in p["message"] for p in body["problems"]), body


def test_nested_json_is_a_problem_for_the_generic_check_and_on_the_page(client, generic_split):
    body = precheck(client, generic_split, NESTED)
    assert body["ok"] is False and body["checked_by"] == "generic"
    assert body["problems"][0]["line"] == 1 and "nested too deeply" in body["problems"][0]["message"]
    page = client.post("/submissions/precheck/", {"split": generic_split.pk,
                                                   "file": SimpleUploadedFile("p.json", NESTED)})
    assert page.status_code == 200 and "nested too deeply" in page.content.decode()


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_random_bytes_are_not_ok(client, tmp_path, benchmark):
    noise = random.Random(7).randbytes(4096)
    body = precheck(client, split_of(benchmark, tmp_path), noise, name="weights.bin")
    assert body["ok"] is False and body["problems"]


def test_a_raw_epic_line_whose_images_are_not_a_list_is_a_problem(client, tmp_path):
    split = split_of("epic-bench", tmp_path)
    body = precheck(client, split, good_line("epic-bench").encode() + b'\n{"images": 5, "response": "{}"}\n')
    assert body["ok"] is False
    assert {"line": 2, "field": "images"}.items() <= body["problems"][0].items()


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_lines_the_scorer_would_refuse_are_problems(client, tmp_path, benchmark):
    # A prediction for a sample, item or task that is not in the split: the scorer refuses the file for it.
    stranger = {"epic-bench": {"key": "EPIC_Bench/Navigation/GroundDetection/zz/zz_mask_rle.json",
                               "formatted_response_localization": [[1, 2, 3, 4]]},
                "plan-bench": {"id": "no-such-item", "prediction": "A"},
                "vge-bench": {"task": "tiny/t9", "outputs": []}}[benchmark]
    body = precheck(client, split_of(benchmark, tmp_path), f"{good_line(benchmark)}\n{json.dumps(stranger)}\n".encode())
    assert body["ok"] is False
    assert [p["line"] for p in body["problems"]] == [2]


@pytest.mark.parametrize("benchmark", [*BENCHMARKS, "generic"])
def test_a_million_line_file_is_refused_at_the_line_bound(client, tmp_path, request, benchmark):
    split = request.getfixturevalue("generic_split") if benchmark == "generic" else split_of(benchmark, tmp_path)
    samples = split.samples.count()
    limit = max(2 * samples, samples + 1000)
    body = precheck(client, split, MILLION_LINES)
    assert body["ok"] is False
    assert any(f"this split has {samples:,} samples; a file may hold at most {limit:,}" in p["message"]
               for p in body["problems"]), body


def test_files_over_the_precheck_size_limit_are_not_read(client, settings, tmp_path):
    settings.PRECHECK_MAX_BYTES = 1000
    body = precheck(client, split_of("vge-bench", tmp_path), b" " * 1001)
    assert body["ok"] is False and "up to 1,000 bytes" in body["problems"][0]["message"]


# Which samples match, which don't -------------------------------------------------------------------------------

@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_report_lists_the_samples_no_line_answers_in_split_order(client, tmp_path, benchmark):
    split = split_of(benchmark, tmp_path)
    lines = good_file(benchmark).decode().splitlines()
    body = precheck(client, split, "\n".join(lines[1:]).encode())
    # A sample without a line scores 0: not a problem, but said, with its key.
    assert body["ok"] is True and body["missing_count"] == 1 and body["matched"] == body["records"] == len(lines) - 1
    [key] = body["missing"]
    # ... the key of the sample the left-out line answers: with that line alone, every other sample is missing.
    alone = precheck(client, split, lines[0].encode())
    keys = list(split.samples.order_by("position", "key").values_list("key", flat=True))
    assert alone["missing"] == [k for k in keys if k != key][:20] and alone["missing_count"] == len(keys) - 1


def test_unmatched_lines_are_problems_with_line_and_field_and_the_rest_still_counted(client, tmp_path):
    split = split_of("plan-bench", tmp_path)
    lines = good_file("plan-bench").decode().splitlines()
    lines[2] = json.dumps({"id": "no-such-item", "prediction": "A"})
    body = precheck(client, split, "\n".join(lines).encode())
    assert body["ok"] is False
    assert body["problems"] == [{"line": 3, "field": "id",
                                 "message": "unknown id 'no-such-item' (not an item of this split)"}]
    assert body["records"] == len(lines) and body["matched"] == len(lines) - 1 and body["missing_count"] == 1


def test_the_missing_list_is_bounded_and_counts_the_rest(client, tmp_path):
    split = split_of("epic-bench", tmp_path)  # 23 samples
    body = precheck(client, split, good_file("epic-bench").splitlines()[0] + b"\n")
    assert body["missing_count"] == 22 and len(body["missing"]) == 20


def test_the_report_names_no_ground_truth_of_a_hidden_split(client, tmp_path):
    split = split_of("plan-bench", tmp_path)
    assert split.hidden_ground_truth
    answers = [s.ground_truth["answer"] for s in split.samples.all() if len(str(s.ground_truth.get("answer"))) > 3]
    assert answers  # open questions carry long answers
    body = precheck(client, split, good_file("plan-bench").splitlines()[0] + b"\n")
    text = json.dumps(body)
    assert body["missing_count"] == split.samples.count() - 1
    assert not [a for a in answers if a in text]


# Raw or std_format (EPIC) -------------------------------------------------------------------------------------

def test_a_raw_epic_file_checked_without_the_raw_option_gets_the_hint(client, tmp_path):
    split = split_of("epic-bench", tmp_path)
    body = precheck(client, split, good_file("epic-bench"), raw=False)
    assert body["ok"] is False and body["file_format"] == "std_format"
    assert len(body["problems"]) == 1
    assert {"line": 1, "field": "response"}.items() <= body["problems"][0].items()
    assert body["problems"][0]["message"].startswith("this looks like raw responses: 23 of the 23 lines read")


def test_the_precheck_page_has_the_raw_box_and_shows_the_summary(client, tmp_path):
    split = split_of("epic-bench", tmp_path)
    file = good_file("epic-bench")
    unticked = client.post("/submissions/precheck/", {"split": split.pk, "file": SimpleUploadedFile("r.jsonl", file)})
    assert "this looks like raw responses" in unticked.content.decode()
    ticked = client.post("/submissions/precheck/", {"split": split.pk, "raw_responses": "on",
                                                    "file": SimpleUploadedFile("r.jsonl", file[:file.index(b"\n")])})
    page = ticked.content.decode()
    assert "No problems found" in page and "Read as <strong>raw responses</strong>" in page
    assert '<span id="precheck-matched">1</span> of 1 line' in page and '<span id="precheck-missing-count">22</span>' in page


# VLMEvalKit sheets (PLAN) ----------------------------------------------------------------------------------------

def _plan_sheet(rows: list[tuple[str, str]], header=("index", "question", "prediction")) -> bytes:
    lines = ["\t".join(header)] + ["\t".join((pid, "q?", pred)[: len(header)]) for pid, pred in rows]
    return ("\n".join(lines) + "\n").encode()


def test_a_vlmevalkit_sheet_is_known_by_its_content_whatever_its_name(client, tmp_path):
    split = split_of("plan-bench", tmp_path)
    rows = [(json.loads(line)["id"], "A") for line in good_file("plan-bench").decode().splitlines()]
    body = precheck(client, split, _plan_sheet(rows), name="results.jsonl")
    assert body["ok"] is True and body["file_format"] == "VLMEvalKit result sheet (TSV)"
    assert body["matched"] == len(rows)


def test_a_vlmevalkit_input_sheet_is_named_as_such(client, tmp_path):
    split = split_of("plan-bench", tmp_path)
    body = precheck(client, split, _plan_sheet([("1", "")], header=("index", "question")), name="PLAN.tsv")
    assert body["ok"] is False
    problem = body["problems"][0]
    assert problem["field"] == "prediction" and "looks like a VLMEvalKit input sheet" in problem["message"]


def test_the_items_file_uploaded_as_predictions_is_named_as_such(client, tmp_path):
    split = split_of("plan-bench", tmp_path)
    body = precheck(client, split, b'{"id": "x1", "question": "Which?", "answer": "A"}\n')
    assert "looks like the split's items (the questions), not predictions" in body["problems"][0]["message"]
    body = precheck(client, split, b'{"id": "x1", "response": "A"}\n')
    assert "(the line has 'response': name that field 'prediction')" in body["problems"][0]["message"]


@pytest.mark.parametrize("body, name, message", [
    (b"index\tquestion\tA\tB\n1\tWhich?\tred\tblue\n", "PLAN.tsv", "This looks like a VLMEvalKit input sheet"),
    (b'{"id": "x1", "question": "Which?", "answer": "A"}\n{"id": "x2", "question": "How many?"}\n', "items.jsonl",
     "This looks like the split's items (the questions), not predictions: the first 2 line(s)"),
])
def test_the_questions_uploaded_as_predictions_are_refused_before_they_are_stored(user, tmp_path, body, name, message):
    split = split_of("plan-bench", tmp_path)
    with pytest.raises(SubmissionError) as refused:
        upload(user, split, body, name=name)
    assert refused.value.field == "file" and refused.value.message.startswith(message)
    assert "no quota was used" in refused.value.message
    assert not Submission.objects.exists()
    # A result sheet has both columns: it goes through.
    assert upload(user, split, b"index\tquestion\tprediction\n1\tWhich?\tA\n", name="PLAN_result.tsv").pk
