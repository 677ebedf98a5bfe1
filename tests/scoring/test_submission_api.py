"""Uploading through POST /api/submissions/: what is stored, what is refused, and the scoring pipeline."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring import pipeline
from scoring.models import ModelEntry, SampleScore, Score, Submission
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory


@pytest.fixture
def dummy_split(dummy_benchmark, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="dev")
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i, task="t")
    return split


def upload(client, **fields):
    data = {"benchmark": "dummy-bench", "split": "dev", "model": "My-VLM"}
    data.update(fields)
    data.setdefault("file", SimpleUploadedFile("pred.txt", b"1\n0.5\n0\n"))
    return client.post("/api/submissions/", data, format="multipart")


@pytest.mark.django_db
def test_upload_stores_file_and_queued_submission(token_client, dummy_split, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(token_client)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued"
    submission = Submission.objects.get(pk=body["id"])
    assert submission.file.read() == b"1\n0.5\n0\n"
    assert submission.model_entry.owner.username == "alice"
    assert len(callbacks) == 1, "scoring is enqueued once the transaction commits"


@pytest.mark.django_db
def test_service_scores_submission_once_and_records_every_sample(token_client, dummy_split):
    submission_id = upload(token_client).json()["id"]
    assert pipeline.submission_score(submission_id=submission_id, worker="w1") == "scored"
    assert pipeline.submission_score(submission_id=submission_id, worker="w2") == "skipped"
    submission = Submission.objects.get(pk=submission_id)
    assert submission.status == "scored" and submission.scorer_version == "dummy-1"
    assert Score.objects.get(submission=submission).overall == pytest.approx(50.0)
    assert list(SampleScore.objects.filter(submission=submission).values_list("score", flat=True)) == [1.0, 0.5, 0.0]
    assert submission.attempts == 1


@pytest.mark.django_db
def test_file_problem_fails_submission_with_line_and_field(token_client, dummy_split):
    submission_id = upload(token_client, file=SimpleUploadedFile("p.txt", b"1\nabc\n")).json()["id"]
    assert pipeline.submission_score(submission_id=submission_id, worker="w") == "failed"
    submission = Submission.objects.get(pk=submission_id)
    assert submission.status == "failed" and not submission.failure_is_site_error
    assert submission.error_report == [{"line": 2, "field": "value", "message": "'abc' is not a number"}]
    assert not Score.objects.filter(submission=submission).exists()


@pytest.mark.django_db
def test_benchmark_without_scorer_fails_with_clear_message(token_client, settings):
    split = SplitFactory(benchmark__slug="future-bench", benchmark__scorer="not-written-yet")
    SampleFactory(split=split, key="k0")  # a split with no samples is refused before storing (issue 30)
    response = token_client.post(
        "/api/submissions/",
        {"benchmark": "future-bench", "split": split.name, "model": "M", "file": SimpleUploadedFile("a.txt", b"1")},
        format="multipart",
    )
    submission_id = response.json()["id"]
    pipeline.submission_score(submission_id=submission_id, worker="w")
    submission = Submission.objects.get(pk=submission_id)
    assert submission.status == "failed"
    assert "No scorer for this benchmark yet" in submission.error_message
    assert not Score.objects.filter(submission=submission).exists()


@pytest.mark.django_db
def test_anonymous_upload_is_refused_and_nothing_stored(api_client, dummy_split):
    response = upload(api_client)
    assert response.status_code == 401
    assert "Sign in" in response.json()["detail"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_empty_file_is_refused(token_client, dummy_split):
    response = upload(token_client, file=SimpleUploadedFile("empty.jsonl", b""))
    assert response.status_code == 400
    assert "empty" in response.json()["detail"] and response.json()["field"] == "file"
    assert Submission.objects.count() == 0 and ModelEntry.objects.filter(name="My-VLM").count() == 0


@pytest.mark.django_db
def test_file_over_the_size_limit_is_refused_with_413(token_client, dummy_split, settings):
    settings.SUBMISSION_MAX_BYTES = 10
    response = upload(token_client, file=SimpleUploadedFile("big.txt", b"0\n" * 20))
    assert response.status_code == 413
    assert "over the limit of 10 bytes" in response.json()["detail"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_declared_body_over_limit_is_refused_before_reading(token_client, dummy_split, settings):
    settings.SUBMISSION_MAX_BYTES = 10
    response = token_client.generic(
        "POST", "/api/submissions/", b"x" * 10, content_type="multipart/form-data; boundary=zz",
        CONTENT_LENGTH=str(50 * 1024 * 1024),
    )
    assert response.status_code == 413
    assert Submission.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields, status, text",
    [
        ({"benchmark": "no-such-bench"}, 404, "Unknown benchmark 'no-such-bench'"),
        ({"split": "nope"}, 404, "Unknown split 'nope'"),
    ],
)
def test_unknown_benchmark_or_split_is_refused(token_client, dummy_split, fields, status, text):
    response = upload(token_client, **fields)
    assert response.status_code == status
    assert text in response.json()["detail"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_someone_elses_model_entry_cannot_be_used(token_client, dummy_split, other_user):
    ModelEntry.objects.create(name="Taken", slug="taken", owner=other_user)
    response = upload(token_client, model="Taken")
    assert response.status_code == 403
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_submitter_sees_own_submission_and_others_do_not(token_client, dummy_split, other_user, api_client):
    submission_id = upload(token_client).json()["id"]
    assert token_client.get(f"/api/submissions/{submission_id}/").json()["status"] == "queued"
    api_client.credentials()
    api_client.force_authenticate(other_user)
    assert api_client.get(f"/api/submissions/{submission_id}/").status_code == 404


@pytest.mark.django_db
def test_storage_failure_leaves_no_row_and_no_file(token_client, dummy_split, monkeypatch, settings):
    def broken_save(self, *args, **kwargs):
        raise RuntimeError("disk full")

    from scoring.models import Submission as Model

    monkeypatch.setattr(Model, "save", broken_save)
    with pytest.raises(RuntimeError):
        upload(token_client)
    assert Submission.objects.count() == 0
    stored = list((settings.MEDIA_ROOT).rglob("*.txt"))
    assert stored == []


@pytest.mark.django_db
def test_runs_of_one_variant_are_marked_on_upload_and_averaged_on_the_board(token_client, dummy_split, client):
    files = [b"1\n0.5\n0\n", b"1\n1\n0\n", b"0\n0\n0\n"]
    ids = [upload(token_client, run_set="  seed  sweep ", file=SimpleUploadedFile("p.txt", body)).json()["id"]
           for body in files[:2]]
    single = upload(token_client, file=SimpleUploadedFile("p.txt", files[2])).json()["id"]
    for pk in (*ids, single):
        assert pipeline.submission_score(submission_id=pk, worker="w") == "scored"
    assert list(Submission.objects.filter(pk__in=ids).values_list("run_set", flat=True)) == ["seed sweep"] * 2
    page = client.get("/leaderboard/dummy-bench/?split=dev&entries=all")
    rows = page.context["view"].rows
    runs = [r for r in rows if r.runs > 1]
    assert len(rows) == 2 and len(runs) == 1  # the two runs are one row; the unlabelled upload stays its own
    assert runs[0].run_ids == tuple(ids) and runs[0].overall == pytest.approx((50.0 + 200 / 3) / 2)
    assert runs[0].run_spread["overall"] == pytest.approx(11.785, abs=1e-3)
    assert "mean of 2 runs ± 11.79" in page.content.decode()
    api = client.get("/api/leaderboards/dummy-bench/?split=dev&entries=all").json()
    mean_row = next(r for r in api["rows"] if r["runs"])
    assert mean_row["runs"] == ids and mean_row["run_spread"]["overall"] == pytest.approx(11.785, abs=1e-3)


@pytest.mark.django_db
def test_my_submissions_come_a_page_at_a_time_newest_first_with_the_count(token_client, user, dummy_split):
    """The list's cost stays that of a page however many submissions a user has (issue 34): `?page=`/`?page_size=`,
    newest first, the total in `X-Total-Count`, the other pages in `Link`; the queries do not grow with the rows."""
    entry = ModelEntryFactory(owner=user)
    made = [Submission.objects.create(model_entry=entry, split=dummy_split, submitter=user, status="scored").pk
            for _ in range(7)]
    newest = sorted(made, reverse=True)

    def page(**params):
        response = token_client.get("/api/submissions/mine/", params)
        assert response.status_code == 200
        return [r["id"] for r in response.json()], response["X-Total-Count"], response.get("Link", "")

    ids, total, link = page(page_size=3)
    assert ids == newest[:3] and total == "7"
    assert link == '<http://testserver/api/submissions/mine/?page=2&page_size=3>; rel="next"'
    ids, _, link = page(page=2, page_size=3)
    assert ids == newest[3:6] and 'page=3&page_size=3>; rel="next"' in link and 'page=1&page_size=3>; rel="prev"' in link
    ids, _, link = page(page=3, page_size=3)
    assert ids == newest[6:] and link == '<http://testserver/api/submissions/mine/?page=2&page_size=3>; rel="prev"'
    assert page()[0] == newest  # the default page holds 20
    with CaptureQueriesContext(connection) as few:
        page(page_size=1)
    with CaptureQueriesContext(connection) as many:
        page(page_size=7)
    assert len(many.captured_queries) == len(few.captured_queries)
    for bad in ({"page": "0"}, {"page_size": "501"}, {"page": "x"}):
        assert token_client.get("/api/submissions/mine/", bad).status_code == 400
