"""Phases (scoring.models.Phase, scoring.phases): uploads refused outside a phase's dates (form, API and the
command-line client, through the one intake, before anything is stored), quotas per phase per day and in total,
results held back from the boards until a results-at-close phase closes, private uploads refused where the phase
disallows them, and the pages that state a phase."""
from __future__ import annotations

import asyncio
import io
import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import httpx
import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from django.utils import timezone
from rest_framework.authtoken.models import Token

from scoring import pipeline, services
from scoring.client import main
from scoring.events import board_group
from scoring.models import ModelEntry, Submission, UploadQuotaDay
from scoring.phases import phase_shown
from scoring.quota import submission_quota
from tests.scoring.factories import PhaseFactory, SampleFactory, SplitFactory

NOW = timezone.now


def _split(phase=None, name="test", **fields):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name=name, phase=phase,
                         is_default=name == "test", **fields)
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i, task="t")
    return split


@pytest.fixture
def bench(dummy_benchmark):
    return SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="seed").benchmark


def _phase(bench, **fields):
    return PhaseFactory(benchmark=bench, name=fields.pop("name", "Test"), **fields)


def api_upload(client, *, split="test", visibility="public", body=b"1\n0.5\n0\n"):
    return client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": split, "model": "Phase-VLM",
                                             "visibility": visibility, "file": SimpleUploadedFile("p.txt", body)},
                       format="multipart")


def form_upload(client, split, *, visibility="public", model="Phase-VLM"):
    return client.post("/submissions/new/", {"split": split.pk, "model_name": model, "visibility": visibility,
                                             "file": SimpleUploadedFile("p.txt", b"1\n0.5\n0\n")})


def _nothing_stored():
    assert not Submission.objects.exists()
    assert not ModelEntry.objects.filter(name="Phase-VLM").exists()
    assert not UploadQuotaDay.objects.exists()


# Dates -------------------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_api_refuses_before_the_phase_opens_and_after_it_closes(token_client, bench):
    # Given a phase opening tomorrow, with a quota
    phase = _phase(bench, opens_at=NOW() + timedelta(days=1, minutes=1), daily_quota=3)
    _split(phase)
    # When a file is sent to its split, then Then it is refused with the opening date, nothing stored
    early = api_upload(token_client)
    assert early.status_code == 403 and early.json()["field"] == "split"
    detail = early.json()["detail"]
    assert "Phase 'Test' of DUMMY-BENCH (split test) opens at " in detail and "UTC (in 1 day)" in detail
    assert "no quota was used" in detail
    _nothing_stored()
    # And once the phase has closed, refused with the closing date
    phase.opens_at, phase.closes_at = NOW() - timedelta(days=10), NOW() - timedelta(hours=2)
    phase.save()
    late = api_upload(token_client)
    assert late.status_code == 403
    assert f"closed at {phase.closes_at.astimezone(dt_timezone.utc):%Y-%m-%d %H:%M} UTC; it takes no more uploads" \
        in late.json()["detail"]
    _nothing_stored()
    # And while it is open, taken
    phase.closes_at = NOW() + timedelta(days=1)
    phase.save()
    assert api_upload(token_client).status_code == 201


@pytest.mark.django_db
def test_the_form_refuses_a_closed_phase_with_the_reason_and_offers_open_splits_only(client, user, bench):
    closed = _split(_phase(bench, name="Old", slug="old", opens_at=NOW() - timedelta(days=9),
                           closes_at=NOW() - timedelta(days=1)), name="old")
    upcoming = _split(_phase(bench, name="Later", slug="later", opens_at=NOW() + timedelta(days=3)), name="later")
    open_split = _split(_phase(bench, name="Now", slug="now"), name="now")
    empty = SplitFactory(benchmark=bench, name="empty", is_default=False)  # no samples
    client.force_login(user)
    page = client.get("/submissions/new/").content.decode()
    assert f'value="{open_split.pk}"' in page
    for other in (closed, upcoming, empty):
        assert f'value="{other.pk}"' not in page
    # A closed split posted anyway (an old page) gets the service's reason, not "not a valid choice"
    response = form_upload(client, closed)
    assert response.status_code == 403
    assert "Phase &#x27;Old&#x27; of DUMMY-BENCH (split old) closed at" in response.content.decode()
    response = form_upload(client, upcoming)
    assert response.status_code == 403 and "opens at" in response.content.decode()
    response = form_upload(client, empty)
    assert response.status_code == 409 and "holds no samples yet" in response.content.decode()
    _nothing_stored()


@pytest.mark.django_db(transaction=True)
def test_the_command_line_client_is_refused_outside_the_dates(dummy_benchmark, user, celery_eager, tmp_path):
    bench = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="seed").benchmark
    _split(_phase(bench, opens_at=NOW() - timedelta(days=5), closes_at=NOW() - timedelta(minutes=1)))
    path = tmp_path / "pred.txt"
    path.write_bytes(b"1\n0\n1\n")
    out = io.StringIO()
    code = main(["submit", "--url", "http://testserver", "--token", Token.objects.create(user=user).key,
                 "--benchmark", "dummy-bench", "--split", "test", "--model", "Phase-VLM", "--interval", "0",
                 "--timeout", "30", str(path)], transport=httpx.WSGITransport(app=get_wsgi_application()), out=out)
    assert code == 1
    assert "upload refused (403)" in out.getvalue() and "it takes no more uploads" in out.getvalue()
    _nothing_stored()


def test_phase_words_for_the_pages():
    phase = PhaseFactory.build(name="Test", opens_at=datetime(2026, 1, 1, tzinfo=dt_timezone.utc),
                               closes_at=datetime(2026, 3, 1, tzinfo=dt_timezone.utc))
    at = datetime(2026, 2, 26, 12, tzinfo=dt_timezone.utc)
    shown = phase_shown(phase, now=at)
    assert (shown.state, shown.when) == ("open", "closes in 2 days")
    assert shown.dates == "2026-01-01 00:00 UTC – 2026-03-01 00:00 UTC"
    assert phase_shown(phase, now=datetime(2025, 12, 31, 19, tzinfo=dt_timezone.utc)).when == "opens in 5 hours"
    assert phase_shown(phase, now=datetime(2026, 3, 1, 0, 1, tzinfo=dt_timezone.utc)).when == "closed 1 minute ago"
    phase.closes_at = None
    assert phase_shown(phase, now=at).when == "open, no close date"


# Quotas ------------------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_the_daily_quota_is_the_phases_over_all_its_splits(token_client, user, other_user, bench):
    # Given a phase with two splits and 3 uploads a day
    phase = _phase(bench, daily_quota=3)
    _split(phase, name="test")
    _split(phase, name="test-b")
    # When a user uploads twice to one split and once to the other
    assert api_upload(token_client).status_code == 201
    assert api_upload(token_client).status_code == 201
    assert api_upload(token_client, split="test-b").status_code == 201
    # Then the fourth, to either split, is refused: the day's quota is the phase's
    refused = api_upload(token_client, split="test-b")
    assert refused.status_code == 429
    assert "Daily quota reached for phase 'Test' of DUMMY-BENCH (split test-b): 3 of 3" in refused.json()["detail"]
    assert Submission.objects.count() == 3
    # And another user has their own
    assert submission_quota(user=other_user, split=phase.splits.first()).remaining == 3


@pytest.mark.django_db
def test_the_total_quota_counts_every_day_of_the_phase(token_client, user, bench):
    phase = _phase(bench, daily_quota=5, total_quota=3)
    split = _split(phase)
    entry = ModelEntry.objects.create(name="Older", slug="older", owner=user)
    for days_ago in (3, 2):  # uploads of earlier days
        sub = Submission.objects.create(model_entry=entry, split=split, submitter=user)
        Submission.objects.filter(pk=sub.pk).update(created_at=NOW() - timedelta(days=days_ago),
                                                    status=Submission.Status.SCORED)  # scored then, so never overdue
    state = submission_quota(user=user, split=split)
    assert (state.used, state.total_used, state.remaining, state.total_remaining) == (0, 2, 1, 1)
    assert api_upload(token_client).status_code == 201
    refused = api_upload(token_client)
    assert refused.status_code == 429
    assert "Total quota reached for phase 'Test' of DUMMY-BENCH: 3 of 3 submissions used in this phase" \
        in refused.json()["detail"]
    assert Submission.objects.count() == 3


@pytest.mark.django_db
def test_a_split_in_no_phase_has_no_quota_and_is_always_open(token_client, bench):
    _split(None)
    for _ in range(4):
        assert api_upload(token_client).status_code == 201


@pytest.mark.django_db
def test_the_upload_page_lists_quota_per_phase(client, user, bench):
    _split(_phase(bench, daily_quota=2, total_quota=10))
    client.force_login(user)
    html = client.get("/submissions/new/").content.decode()
    assert "DUMMY-BENCH, phase Test (test): 2 of 2 left today; 10 of 10 left in the phase" in html


# Private submissions -----------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_private_uploads_are_refused_where_the_phase_disallows_them(token_client, client, user, bench):
    split = _split(_phase(bench, private_allowed=False))
    refused = api_upload(token_client, visibility="private")
    assert refused.status_code == 400 and refused.json()["field"] == "visibility"
    assert "takes public submissions only: private ones are not allowed here" in refused.json()["detail"]
    client.force_login(user)
    assert "takes public submissions only" in form_upload(client, split, visibility="private").content.decode()
    _nothing_stored()
    # A public one is taken, and cannot be made private afterwards either
    created = api_upload(token_client)
    assert created.status_code == 201
    submission = Submission.objects.get(pk=created.json()["id"])
    with pytest.raises(services.SubmissionError, match="takes public submissions only"):
        services.submission_visibility_set(user=user, submission=submission, visibility="private")
    assert services.submission_visibility_set(user=user, submission=submission, visibility="withdrawn")


# Results at close --------------------------------------------------------------------------------------------------

def _scored_upload(user, split, model: str) -> Submission:
    entry = services.model_entry_for_upload(user=user, name=model)
    submission = services.submission_create(user=user, split=split, model_entry=entry,
                                            uploaded_file=SimpleUploadedFile("p.txt", b"1\n0.5\n0\n"))
    assert pipeline.submission_score(submission_id=submission.pk, worker="w") == "scored"
    submission.refresh_from_db()
    return submission


@pytest.mark.django_db
def test_results_at_close_are_held_back_from_boards_until_the_phase_closes(client, user, other_user, bench):
    # Given a phase that shows results at its close, with a scored public upload
    phase = _phase(bench, results_at_close=True, closes_at=NOW() + timedelta(days=2, minutes=1))
    split = _split(phase)
    submission = _scored_upload(user, split, "Hidden-Till-Close")
    # When another user reads the board, the model page and the submission's drill-down
    client.force_login(other_user)
    board = client.get("/leaderboard/dummy-bench/?split=test").content.decode()
    # Then the row is not there, and the board says why
    assert "Hidden-Till-Close" not in board
    assert "Results of this phase are shown when it closes" in board and "closes in 2 days" in board
    model_page = client.get(f"/models/{submission.model_entry.slug}/")
    assert f"scored here #{submission.pk}" not in model_page.content.decode()
    assert "No scored submissions yet." in model_page.content.decode()
    assert client.get(f"/submissions/{submission.pk}/samples/").status_code in (403, 404)
    api = client.get("/api/leaderboards/dummy-bench/?split=test")
    assert api.status_code == 200 and "Hidden-Till-Close" not in api.content.decode()
    # And the submitter sees the score on the submission's page at once
    client.force_login(user)
    own = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "Scored" in own and "50.0" in own
    assert "Results of this phase are shown on the board when it closes" in own
    # When the phase closes, the row is on the board for everyone
    phase.closes_at = NOW() - timedelta(seconds=1)
    phase.save()
    time.sleep(1.1)  # no one touches the board: its fingerprint (re-read each second) counts the rows now shown
    client.force_login(other_user)
    board = client.get("/leaderboard/dummy-bench/?split=test").content.decode()
    assert "Hidden-Till-Close" in board and "Results of this phase are shown when it closes" not in board
    assert "closed " in board
    assert f"scored here #{submission.pk}" in client.get(f"/models/{submission.model_entry.slug}/").content.decode()


@pytest.mark.django_db
def test_the_format_page_states_each_splits_phase_and_dates(client, bench):
    _split(_phase(bench, name="Test", opens_at=NOW() - timedelta(days=1), closes_at=NOW() + timedelta(hours=5, minutes=1),
                  daily_quota=5, total_quota=20, results_at_close=True))
    SplitFactory(benchmark=bench, name="paper", is_default=False)
    page = client.get("/leaderboard/dummy-bench/format/").content.decode()
    assert "<strong>Test</strong>" in page and "(closes in 5 hours)" in page
    assert "quota per user: 5 a day, 20 in all; results shown when it closes" in page
    assert "no samples yet: nothing to download or submit" in page


# Admin -------------------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_curators_edit_phases_in_the_admin_and_the_board_follows(client, curator, user, bench):
    # Given a staff curator (not a superuser) and a split in a phase that is open
    curator.is_staff = True
    curator.save()
    phase = _phase(bench, name="Test", opens_at=NOW() - timedelta(days=1))
    split = _split(phase)
    client.force_login(curator)
    assert client.get("/admin/scoring/phase/").status_code == 200
    # When the curator closes it in the admin
    change = client.get(f"/admin/scoring/phase/{phase.pk}/change/")
    assert change.status_code == 200 and "Dates (UTC)" in change.content.decode()
    closed_at = NOW() - timedelta(minutes=5)
    response = client.post(f"/admin/scoring/phase/{phase.pk}/change/", {
        "benchmark": bench.pk, "name": "Test", "slug": phase.slug, "description": "", "order": 0,
        "opens_at_0": (NOW() - timedelta(days=1)).strftime("%Y-%m-%d"), "opens_at_1": "00:00:00",
        "closes_at_0": closed_at.strftime("%Y-%m-%d"), "closes_at_1": closed_at.strftime("%H:%M:%S"),
        "daily_quota": "3", "total_quota": "", "private_allowed": "on",
        "splits-TOTAL_FORMS": "1", "splits-INITIAL_FORMS": "1", "splits-MIN_NUM_FORMS": "0",
        "splits-MAX_NUM_FORMS": "1000", "splits-0-id": split.pk, "splits-0-phase": phase.pk,
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    phase.refresh_from_db()
    assert phase.has_closed() and phase.daily_quota == 3
    # Then uploads are refused, and the board says the phase closed
    user_client = client.__class__()
    user_client.force_login(user)
    assert form_upload(user_client, split).status_code == 403
    assert "closed 5 minutes ago" in user_client.get("/leaderboard/dummy-bench/?split=test").content.decode()
    # And a user who is not a curator cannot reach the phases' admin
    assert user_client.get("/admin/scoring/phase/").status_code == 302


@pytest.mark.django_db
def test_a_cached_board_turns_when_its_phase_closes(client, user, bench):
    # Given a phase closing in two seconds, and its board read by a visitor (the page is cached whole)
    phase = _phase(bench, opens_at=NOW() - timedelta(days=1))
    split = _split(phase)
    _scored_upload(user, split, "Some-VLM")
    phase.closes_at = NOW() + timedelta(seconds=3)
    phase.save()
    first = client.get("/leaderboard/dummy-bench/?split=test").content.decode()
    assert "(closes in " in first and "Some-VLM" in first
    # When the close passes, with no new score and no edit
    time.sleep(max(0.0, (phase.closes_at - NOW()).total_seconds()) + 1.1)
    # Then the next visitor reads that it closed
    later = client.get("/leaderboard/dummy-bench/?split=test").content.decode()
    assert "(closed " in later and "(closes in " not in later


@pytest.mark.django_db
def test_a_held_back_score_is_not_announced_to_the_boards_watchers(user, bench, django_capture_on_commit_callbacks):
    # Given a page watching the board of a split whose phase shows results at its close (the in-memory channel layer)
    layer = get_channel_layer()
    watcher = async_to_sync(layer.new_channel)()
    open_split = _split(_phase(bench, name="Open"), name="open")
    held_split = _split(_phase(bench, results_at_close=True, closes_at=NOW() + timedelta(days=2)))
    for split in (open_split, held_split):
        async_to_sync(layer.group_add)(board_group(split.pk), watcher)

    def heard():
        try:
            return async_to_sync(asyncio.wait_for)(layer.receive(watcher), 0.3)
        except asyncio.TimeoutError:
            return None

    # When an upload to the held-back split is scored, the watchers hear nothing (not even which submission)
    with django_capture_on_commit_callbacks(execute=True):
        _scored_upload(user, held_split, "Hidden-Till-Close")
    assert heard() is None
    # And a score on a board that shows it is announced as before
    with django_capture_on_commit_callbacks(execute=True):
        shown = _scored_upload(user, open_split, "Shown-Now")
    assert heard() == {"type": "board.updated", "submission": shown.pk}
