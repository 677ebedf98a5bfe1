"""One intake path (issue 30): the web form, the API and the command-line client refuse the same files for the same
reasons before anything is stored; a file in another benchmark's format is named as such; repeated problems are
grouped with their count, never silently capped."""
from __future__ import annotations

import io

import httpx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from rest_framework.authtoken.models import Token

from scoring.client import main as client_main
from scoring.core.contract import FileProblem, SubmissionRejected
from scoring.models import ModelEntry, Submission, UploadQuotaDay
from scoring.quota import submission_quota
from tests.scoring.bench_splits import epic_split, good_file, plan_split
from tests.scoring.factories import PhaseFactory

pytestmark = pytest.mark.django_db

WRONG_BENCHMARK = "This looks like a PLAN-Bench predictions file"


@pytest.fixture
def epic(tmp_path):
    split = epic_split(tmp_path / "epic")
    split.phase = PhaseFactory(benchmark=split.benchmark, daily_quota=5)
    split.save(update_fields=["phase"])
    return split


def _nothing_stored(user, split, model: str) -> None:
    assert Submission.objects.count() == 0
    assert not ModelEntry.objects.filter(name=model).exists()
    assert not UploadQuotaDay.objects.exists()
    assert submission_quota(user=user, split=split).remaining == 5


def _form_post(client, split, body: bytes, *, model: str, raw: bool = True):
    data = {"split": split.pk, "model_name": model, "visibility": "public",
            "file": SimpleUploadedFile("predictions.jsonl", body)}
    if raw:
        data["raw_responses"] = "on"
    return client.post("/submissions/new/", data)


def test_web_form_refuses_another_benchmarks_file_naming_it_and_stores_nothing(client, user, epic):
    """"the web form stores it as a Failed submission — and creates a public model page for it": now "the web form,
    the API and the CLI refuse the same files for the same reasons before anything is stored (no quota used, no
    Failed row, no model page); a file that looks like another benchmark's format is named as such ("this looks like
    a PLAN-Bench predictions file")"."""
    client.force_login(user)
    response = _form_post(client, epic, good_file("plan-bench"), model="badjson-model")
    html = response.content.decode()
    assert response.status_code == 400
    assert WRONG_BENCHMARK in html and "Nothing was stored and no quota was used." in html
    _nothing_stored(user, epic, "badjson-model")
    assert client.get("/models/badjson-model/").status_code == 404


def test_web_form_refuses_a_plainly_broken_file_before_storing_it(client, user, epic):
    """"The web form and the API disagree: the API and CLI refuse a plainly wrong file before storing it ("no quota
    was used"), but the web form stores it as a Failed submission — and creates a public model page for it
    (`/models/badjson-model/`)"."""
    client.force_login(user)
    response = _form_post(client, epic, b"{not json\n" * 50, model="badjson-model")
    html = response.content.decode()
    assert response.status_code == 400 and 'id="upload-refusal"' in html
    assert "50 lines" in html and "not valid JSON" in html
    _nothing_stored(user, epic, "badjson-model")
    assert client.get("/models/badjson-model/").status_code == 404


@pytest.mark.django_db(transaction=True)  # the client's WSGI requests close the connection at their end
def test_api_and_client_refuse_the_same_file_for_the_same_reason(client, user, epic, tmp_path):
    """"the web form, the API and the CLI refuse the same files for the same reasons before anything is stored"."""
    client.force_login(user)
    form_html = _form_post(client, epic, good_file("plan-bench"), model="badjson-model").content.decode()
    token = Token.objects.create(user=user)
    api = client.post("/api/submissions/", {
        "benchmark": "epic-bench", "split": epic.name, "model": "badjson-model", "raw": "true",
        "file": SimpleUploadedFile("predictions.jsonl", good_file("plan-bench"))},
        HTTP_AUTHORIZATION=f"Token {token.key}")
    body = api.json()
    assert api.status_code == 400 and body["detail"].startswith(WRONG_BENCHMARK)
    assert body["detail"] in form_html.replace("&#x27;", "'")  # the same sentence as the web form's
    assert body["problem_count"] == 48 and body["problems"][0]["count"] == 48
    path = tmp_path / "plan.jsonl"
    path.write_bytes(good_file("plan-bench"))
    out = io.StringIO()
    code = client_main(["submit", "--url", "http://testserver", "--token", token.key, "--benchmark", "epic-bench",
                        "--split", epic.name, "--model", "badjson-model", "--raw", str(path)],
                       transport=httpx.WSGITransport(app=get_wsgi_application()), out=out)
    assert code == 1 and "upload refused (400)" in out.getvalue() and WRONG_BENCHMARK in out.getvalue()
    assert "48 lines (1, 2, 3" in out.getvalue()
    _nothing_stored(user, epic, "badjson-model")


def test_a_misnamed_field_is_grouped_with_its_count_and_a_suggestion(client, user, epic):
    """"a wrong field name (`imgs`) gets 50 identical rows naming an internal path": now "repeated identical
    problems are grouped ("50 lines: field `imgs` is not known — did you mean `images`?"), and the count is never
    silently capped"."""
    client.force_login(user)
    body = good_file("epic-bench").replace(b'"images"', b'"imgs"')
    html = _form_post(client, epic, body, model="Imgs-VLM").content.decode()
    lines = body.count(b"\n")
    assert f"{lines} lines (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …): field `imgs` is not known — did you mean `images`?" in html
    assert html.count("did you mean") == 1  # once for all the lines
    assert "gt_json_path" not in html  # not the internal path it was reported under
    _nothing_stored(user, epic, "Imgs-VLM")


def test_another_benchmarks_file_on_plan_reports_every_problem_not_twenty(client, user):
    """"an EPIC file sent to PLAN reports "20 problems" for 50 bad lines, silently capped": the count is never
    silently capped."""
    split = plan_split()
    client.force_login(user)
    body = b"".join(good_file("epic-bench").splitlines(keepends=True) * 3)[: 10**6]
    lines = body.count(b"\n")
    assert lines > 20
    html = _form_post(client, split, body, model="Epic-On-Plan", raw=False).content.decode()
    assert "This looks like an EPIC-Bench predictions file" in html
    assert f"{lines} problems in all" in html and f"{lines} lines (1, 2, 3" in html


def test_the_error_model_groups_problems_of_one_kind_and_counts_them_all():
    """"repeated identical problems are grouped ... and the count is never silently capped": past the problems a
    rejection keeps, every one is still in its group's count."""
    problems = [FileProblem(f"'k-{i}' is not a sample of this split", line=i + 1, field="key") for i in range(5000)]
    problems += [FileProblem("not valid JSON", line=9000)]
    rejection = SubmissionRejected("", iter(problems))
    groups = rejection.groups()
    assert [g.count for g in groups] == [5000, 1] and rejection.problem_count == 5001
    assert str(groups[0]).startswith("5,000 lines (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …), e.g. field 'key': 'k-0'")
    assert str(groups[1]) == "line 9000: not valid JSON"


def test_a_failed_submissions_page_groups_its_repeated_problems(client, user, dummy_benchmark):
    """"a wrong field name (`imgs`) gets 50 identical rows": on the page of a file that reached the scorer (past the
    intake's bound), "repeated identical problems are grouped" too, with their count."""
    from scoring import pipeline, services
    from tests.scoring.bench_splits import past_the_intake
    from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy")
    for i in range(50):
        SampleFactory(split=split, key=f"k{i}", position=i)
    with past_the_intake():
        submission = services.submission_create(user=user, split=split, model_entry=ModelEntryFactory(owner=user),
                                                uploaded_file=SimpleUploadedFile("p.txt", b"x\n" * 50))
    pipeline.submission_score(submission_id=submission.pk, worker="w")
    client.force_login(user)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "<td>50 lines: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …</td><td>value</td><td>&#x27;x&#x27; is not a number</td>" in html
    assert html.count("is not a number") == 1
