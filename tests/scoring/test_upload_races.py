"""Parallel uploads on SQLite (issue 13, defects 2 and 7): the daily quota holds, and a new model name raced by many
uploads is created once, never a 500. The same races on PostgreSQL: tests/integration/test_upload_races.py."""
from __future__ import annotations

import pytest

from scoring.models import ChangeRecord, ModelEntry, Submission
from tests.scoring.upload_race import parallel_uploads, race_split, statuses

pytestmark = pytest.mark.django_db(transaction=True)  # threads need committed data and their own connections


def test_twenty_parallel_uploads_against_quota_five_accept_exactly_five(dummy_benchmark, user):
    split = race_split(daily_quota=5)
    results = parallel_uploads([user] * 20)
    assert statuses(results) == {201: 5, 429: 15}, statuses(results)
    assert Submission.objects.filter(split=split, submitter=user).count() == 5
    refusal = next(body for _, status, body in results if status == 429)
    assert "Daily quota reached" in refusal["detail"] and "5 of 5" in refusal["detail"]


def test_parallel_uploads_creating_one_new_model_name_make_one_entry(dummy_benchmark, user):
    race_split(daily_quota=None)
    results = parallel_uploads([user] * 20, model="Fresh-VLM")
    assert statuses(results) == {201: 20}, statuses(results)
    entry = ModelEntry.objects.get(name="Fresh-VLM")
    assert entry.owner == user and entry.submissions.count() == 20
    # Made once, so recorded once, by the upload that made it.
    made = ChangeRecord.objects.get(subject="model-entry", object_id=entry.pk)
    assert made.changes["created"][1] in {f"on upload of submission #{pk}" for pk in entry.submissions.values_list(
        "pk", flat=True)}


def test_two_users_racing_for_a_new_model_name_one_owns_it_the_other_is_refused(dummy_benchmark, user, other_user):
    race_split(daily_quota=None)
    results = parallel_uploads([user, other_user] * 10, model="Contested-VLM")
    assert not [r for r in results if r[1] >= 500], results
    entry = ModelEntry.objects.get(name="Contested-VLM")
    owner, loser = entry.owner.username, ({"alice", "bob"} - {entry.owner.username}).pop()
    assert {status for name, status, _ in results if name == owner} == {201}
    refused = [body for name, status, body in results if name == loser]
    assert len(refused) == 10
    assert all("belongs to someone else" in body["detail"] and body["field"] == "model" for body in refused)
