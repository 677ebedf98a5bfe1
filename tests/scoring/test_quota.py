"""Daily quotas per user and split; the free format pre-check."""
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import pipeline, services
from scoring.models import Submission, UploadQuotaDay
from scoring.quota import quota_days_prune, submission_quota, submission_quota_check
from tests.scoring import precheck_scorer
from tests.scoring.factories import SampleFactory, SplitFactory


@pytest.fixture
def quota_split(dummy_benchmark, settings):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="test", daily_quota=2,
                         hidden_ground_truth=True)
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i, task="t")
    return split


def upload(client, name="pred.txt", body=b"1\n0.5\n0\n", split="test"):
    return client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": split, "model": "My-VLM",
                                             "file": SimpleUploadedFile(name, body)}, format="multipart")


@pytest.mark.django_db
def test_uploads_past_the_daily_quota_are_refused_with_429(token_client, quota_split):
    assert upload(token_client).status_code == 201
    assert upload(token_client).status_code == 201
    third = upload(token_client)
    assert third.status_code == 429
    assert "Daily quota reached" in third.json()["detail"] and "2 of 2" in third.json()["detail"]
    assert Submission.objects.count() == 2


@pytest.mark.django_db
def test_file_failures_count_but_site_failures_do_not(token_client, user, quota_split):
    bad = upload(token_client, body=b"abc\n").json()["id"]
    assert pipeline.submission_score(submission_id=bad, worker="w") == "failed"
    crashed = upload(token_client).json()["id"]
    pipeline.submission_fail_internal(submission_id=crashed, message="disk full")
    state = submission_quota(user=user, split=quota_split)
    assert state.used == 1 and state.remaining == 1
    assert upload(token_client).status_code == 201
    assert upload(token_client).status_code == 429


@pytest.mark.django_db
def test_quota_is_per_split_and_per_user_and_unlimited_without_a_limit(token_client, user, other_user, quota_split):
    dev = SplitFactory(benchmark=quota_split.benchmark, name="dev", daily_quota=None, is_default=False)
    SampleFactory(split=dev, key="k0", position=0, task="t")
    for _ in range(2):
        assert upload(token_client).status_code == 201
    for _ in range(4):
        assert upload(token_client, split="dev").status_code == 201
    assert submission_quota(user=user, split=dev).remaining is None
    assert submission_quota(user=other_user, split=quota_split).remaining == 2


@pytest.mark.django_db
def test_quota_resets_at_midnight_utc(user, quota_split):
    Submission.objects.create(model_entry_id=_entry(user).pk, split=quota_split, submitter=user)
    Submission.objects.create(model_entry_id=_entry(user).pk, split=quota_split, submitter=user)
    now = datetime.now(dt_timezone.utc)
    with pytest.raises(services.SubmissionError) as err:
        submission_quota_check(user=user, split=quota_split, now=now)
    assert err.value.status == 429
    tomorrow = now.replace(hour=0, minute=0, second=1) + timedelta(days=1)
    submission_quota_check(user=user, split=quota_split, now=tomorrow)  # no error


def _entry(user):
    from scoring.models import ModelEntry

    return ModelEntry.objects.get_or_create(name="Q", defaults={"slug": "q", "owner": user})[0]


@pytest.mark.django_db
def test_reported_rows_do_not_count(user, quota_split):
    Submission.objects.create(model_entry=_entry(user), split=quota_split, submitter=user,
                              source=Submission.Source.REPORTED)
    assert submission_quota(user=user, split=quota_split).used == 0


@pytest.mark.django_db
def test_precheck_reports_json_problems_by_line_and_uses_no_quota(client, user, quota_split):
    client.force_login(user)
    response = client.post("/api/submissions/precheck/", {
        "benchmark": "dummy-bench", "split": "test",
        "file": SimpleUploadedFile("p.jsonl", b'{"a": 1}\n{broken\n'),
    })
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False and body["checked_by"] == "generic"
    assert body["problems"][0]["line"] == 2
    assert Submission.objects.count() == 0
    assert submission_quota(user=user, split=quota_split).used == 0


@pytest.mark.django_db
def test_precheck_uses_the_scorers_own_precheck_when_present(register_benchmark, client, settings, quota_split):
    register_benchmark(precheck_scorer.PLUGIN)
    response = client.post("/api/submissions/precheck/", {
        "benchmark": "dummy-bench", "split": "test", "file": SimpleUploadedFile("p.txt", b"1\nx\n"),
    })
    body = response.json()
    assert body["checked_by"] == "scorer"
    assert body["problems"] == [{"line": 2, "field": "value", "message": "'x' is not a number (3 samples)"}]


@pytest.mark.django_db
def test_precheck_of_an_unknown_benchmark_is_404_and_page_works(client, quota_split):
    response = client.post("/api/submissions/precheck/", {
        "benchmark": "nope", "file": SimpleUploadedFile("p.txt", b"1\n")})
    assert response.status_code == 404
    page = client.post("/submissions/precheck/", {"split": quota_split.pk,
                                                   "file": SimpleUploadedFile("p.json", b"{")})
    assert page.status_code == 200 and "not valid JSON" in page.content.decode()


@pytest.mark.django_db
def test_upload_page_shows_remaining_quota(client, user, quota_split):
    client.force_login(user)
    html = client.get("/submissions/new/").content.decode()
    assert "2 of 2 left today" in html


def test_past_days_quota_lock_rows_are_pruned_and_todays_kept(user, quota_split):
    # Given lock rows of today, yesterday and last month
    now = datetime(2026, 12, 1, 9, 0, tzinfo=dt_timezone.utc)
    for days_ago in (0, 1, 30):
        UploadQuotaDay.objects.create(user=user, phase=quota_split.phase, day=(now - timedelta(days=days_ago)).date())
    # When the daily prune runs
    deleted = quota_days_prune(now=now)
    # Then only today's row is left
    assert deleted == 2
    assert list(UploadQuotaDay.objects.values_list("day", flat=True)) == [now.date()]
