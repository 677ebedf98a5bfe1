"""The anonymous format pre-check checks what the scorer will check, with bounded work: each built-in benchmark
reads the file and matches it to the split as its scorer does; a benchmark without a pre-check gets every line read
with the readers' shared decoding; no file is read past its split's line bound or over PRECHECK_MAX_BYTES; a file's
faults are problems in a 200 answer, never a 500."""
from __future__ import annotations

import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.scoring.bench_splits import BENCHMARKS, good_file, good_line, split_of
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db

NESTED = b'{"task": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
HUGE_INTEGER = b'{"id": ' + b"9" * 5000 + b"}\n"
# A million lines each well-formed on its own (a prediction for an unknown id), so that reading them goes on
MILLION_LINES = b"".join(b'{"id": "%d", "prediction": "A"}\n' % n for n in range(1_000_000))


def precheck(client, split, body: bytes, name: str = "pred.jsonl") -> dict:
    response = client.post("/api/submissions/precheck/", {
        "benchmark": split.benchmark.slug, "split": split.name, "file": SimpleUploadedFile(name, body)})
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
    body = precheck(client, split_of(benchmark, tmp_path), good_file(benchmark))
    assert body == {"ok": True, "checked_by": "scorer", "problems": []}


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
