"""Model entries say what their owner chose (never silently open-source) and their owners and curators edit them,
with an audit of every change; an upload is public (on the boards), private (scored, its submitter's only) or
withdrawn (on no board, for good), and the boards, model pages, exports, the drill-down and its download show
public rows only."""
from __future__ import annotations

import io

import httpx
import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from rest_framework.authtoken.models import Token

from scoring import pipeline, services
from scoring.client import main
from scoring.models import ChangeRecord, ModelEntry, Submission
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()  # boards cache their split by slug: another test's split of the same slug must not answer


@pytest.fixture
def split(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy",
                         hidden_ground_truth=False)
    for i in range(2):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def upload_form(client, split, name="Secret-VL", **fields):
    return client.post("/submissions/new/", {"split": split.pk, "model_name": name,
                                             "file": SimpleUploadedFile("p.txt", b"1\n0\n"), **fields})


def scored(client, user, split, **fields) -> Submission:
    client.force_login(user)
    assert upload_form(client, split, **fields).status_code == 302
    submission = Submission.objects.order_by("-pk").first()
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    submission.refresh_from_db()
    return submission


def test_a_new_model_is_not_silently_open_source(client, user, split):
    scored(client, user, split, name="Plain-VL")
    assert ModelEntry.objects.get(name="Plain-VL").kind == ""
    scored(client, user, split, name="Closed-VL", kind="proprietary", organisation="Lab", parameters_b="7")
    entry = ModelEntry.objects.get(name="Closed-VL")
    assert (entry.kind, entry.organisation, entry.parameters_b) == ("proprietary", "Lab", 7.0)


def test_a_model_made_by_an_upload_is_in_the_audit_with_the_facts_it_was_made_with(client, user, split):
    first = scored(client, user, split, name="Made-VL", kind="proprietary", organisation="Lab", parameters_b="7")
    entry = first.model_entry
    record = ChangeRecord.objects.get(subject="model-entry", object_id=entry.pk)
    assert record.user == user
    assert record.changes == {"created": [None, f"on upload of submission #{first.pk}"], "name": [None, "Made-VL"],
                              "kind": [None, "proprietary"], "organisation": [None, "Lab"],
                              "parameters_b": [None, 7.0]}
    # A second upload to the entry makes nothing, so records nothing.
    scored(client, user, split, name="Made-VL")
    assert ChangeRecord.objects.filter(subject="model-entry", object_id=entry.pk).count() == 1
    page = client.get(f"/models/{entry.slug}/edit/").content.decode()
    assert f"created: – → on upload of submission #{first.pk}; name: – → Made-VL" in page


def test_owner_and_curator_edit_a_model_with_an_audit_others_cannot(client, user, other_user, curator, split):
    submission = scored(client, user, split, name="Mine-VL")
    entry = submission.model_entry
    url = f"/models/{entry.slug}/edit/"
    form = {"organisation": "Alice Lab", "kind": "open-source", "parameters_b": "8", "thinking_budget": "",
            "input_resolution": "", "open_weights": "true", "paper_url": "https://arxiv.org/abs/1",
            "code_url": "", "model_url": "https://example.org/mine", "description": ""}
    assert client.post(url, form).status_code == 302
    entry.refresh_from_db()
    assert (entry.organisation, entry.kind, entry.parameters_b, entry.open_weights) == ("Alice Lab", "open-source",
                                                                                         8.0, True)
    record = ChangeRecord.objects.filter(subject="model-entry", object_id=entry.pk).first()  # newest first
    assert record.user == user and record.changes["organisation"] == ["", "Alice Lab"]
    assert record.changes["kind"] == ["", "open-source"] and "description" not in record.changes
    page = client.get(url).content.decode()
    assert "organisation:  → Alice Lab" in page and "parameters_b: – → 8.0" in page

    assert 'id="model-edit-link"' in client.get(f"/models/{entry.slug}/").content.decode()
    client.force_login(other_user)
    assert 'id="model-edit-link"' not in client.get(f"/models/{entry.slug}/").content.decode()
    assert client.get(url).status_code == 404
    assert client.post(url, {**form, "organisation": "Bob"}).status_code == 404
    with pytest.raises(services.SubmissionError):
        services.model_entry_update(user=other_user, entry=entry, values={"organisation": "Bob"})

    client.force_login(curator)
    assert client.post(url, {**form, "organisation": "Alice Lab (verified)"}).status_code == 302
    assert ChangeRecord.objects.filter(subject="model-entry", object_id=entry.pk).count() == 3  # made, 2 edits
    assert ChangeRecord.objects.filter(subject="model-entry", object_id=entry.pk).first().user == curator


def test_a_private_submission_is_on_no_board_and_its_results_are_its_owners(client, user, other_user, split):
    mine = scored(client, user, split, name="Secret-VL", visibility="private")
    assert mine.visibility == "private"
    client.logout()
    board = client.get("/leaderboard/dummy-bench/").content.decode()
    assert "Secret-VL" not in board
    assert "Secret-VL" not in client.get("/api/leaderboards/dummy-bench/").content.decode()
    assert "Secret-VL" not in client.get("/leaderboard/dummy-bench/export.csv").content.decode()
    assert client.get(f"/submissions/{mine.pk}/samples/").status_code == 404
    assert client.get(f"/submissions/{mine.pk}/samples.jsonl").status_code == 404
    model_page = client.get(f"/models/{mine.model_entry.slug}/").content.decode()
    assert f"scored here #{mine.pk}" not in model_page and "No scored submissions yet." in model_page
    client.force_login(other_user)
    assert client.get(f"/submissions/{mine.pk}/").status_code == 404
    assert client.get(f"/submissions/{mine.pk}/samples/").status_code == 404
    client.force_login(user)
    assert client.get(f"/submissions/{mine.pk}/samples/").status_code == 200
    page = client.get(f"/submissions/{mine.pk}/").content.decode()
    assert "Private: scored, seen by its owner only" in page
    assert '<td class="visibility-private">private</td>' in client.get("/submissions/").content.decode()


def test_making_it_public_puts_it_on_the_board_and_withdrawing_takes_it_off_for_good(client, user, curator, split):
    mine = scored(client, user, split, name="Later-VL", visibility="private")
    assert client.post(f"/submissions/{mine.pk}/visibility/", {"visibility": "public"}).status_code == 302
    client.logout()
    assert "Later-VL" in client.get("/leaderboard/dummy-bench/").content.decode()  # the cached page refreshed
    [row] = client.get("/api/leaderboards/dummy-bench/").json()["rows"]
    assert row["model"]["name"] == "Later-VL" and row["model"]["kind"] == ""  # not stated, not open-source
    assert '<td class="kind" data-key="kind">not stated</td>' in client.get("/leaderboard/dummy-bench/").content.decode()
    client.force_login(user)
    client.post(f"/submissions/{mine.pk}/visibility/", {"visibility": "withdrawn", "confirm": "withdraw"})  # confirmed
    client.logout()
    assert "Later-VL" not in client.get("/leaderboard/dummy-bench/").content.decode()
    client.force_login(user)
    client.post(f"/submissions/{mine.pk}/visibility/", {"visibility": "public"})
    mine.refresh_from_db()
    assert mine.visibility == "withdrawn"  # the submitter cannot bring it back
    history = list(ChangeRecord.objects.filter(subject="submission", object_id=mine.pk).order_by("id")
                   .values_list("changes", flat=True))
    assert history == [{"visibility": ["private", "public"]}, {"visibility": ["public", "withdrawn"]}]
    assert services.submission_visibility_set(user=curator, submission=mine, visibility="public") is True


def test_the_api_takes_the_visibility(token_client, split, celery_eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client.post("/api/submissions/", {
            "benchmark": "dummy-bench", "split": split.name, "model": "Api-VL", "visibility": "private",
            "file": SimpleUploadedFile("p.txt", b"1\n1\n")}, format="multipart")
    assert response.status_code == 201 and response.json()["visibility"] == "private"
    assert ModelEntry.objects.get(name="Api-VL").kind == ""
    bad = token_client.post("/api/submissions/", {"benchmark": "dummy-bench", "model": "Api-VL",
                                                  "visibility": "withdrawn",
                                                  "file": SimpleUploadedFile("p.txt", b"1\n")}, format="multipart")
    assert bad.status_code == 400


def test_the_api_changes_the_visibility_of_ones_own_submission(token_client, api_client, other_user, split,
                                                               celery_eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = token_client.post("/api/submissions/", {
            "benchmark": "dummy-bench", "split": split.name, "model": "Patch-VL",
            "file": SimpleUploadedFile("p.txt", b"1\n1\n")}, format="multipart").json()
    url = f"/api/submissions/{created['id']}/"
    response = token_client.patch(url, {"visibility": "private"}, format="json")
    assert response.status_code == 200 and response.json()["visibility"] == "private"
    assert token_client.patch(url, {"visibility": "everyone"}, format="json").status_code == 400
    api_client.force_authenticate(other_user)
    assert api_client.patch(url, {"visibility": "public"}, format="json").status_code == 404
    assert Submission.objects.get(pk=created["id"]).visibility == "private"
    assert ChangeRecord.objects.filter(subject="submission", object_id=created["id"]).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_client_uploads_a_private_submission(user, split, tmp_path, celery_eager):
    path = tmp_path / "p.txt"
    path.write_bytes(b"1\n0\n")
    out = io.StringIO()
    code = main(["submit", "--url", "http://testserver", "--token", Token.objects.create(user=user).key,
                 "--benchmark", "dummy-bench", "--split", split.name, "--model", "Quiet-VL", "--private",
                 "--interval", "0", str(path)], transport=httpx.WSGITransport(app=get_wsgi_application()), out=out)
    assert code == 0, out.getvalue()
    assert Submission.objects.get().visibility == "private"
