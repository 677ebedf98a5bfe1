"""The device lab's pages and JSON endpoints: who sees what, the editor's forms, refusals named on the page."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from devicelab.models import DeviceDraft, DraftRevision
from devicelab.services import review as review_services
from tests.access_fixtures import playtest_build
from tests.devicelab.conftest import photo_bytes

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_lab_pages_by_role(draft, annotator, annotator2, curator, reviewers, django_user_model):
    nobody = django_user_model.objects.create_user("plain", password="pw-plain-123")
    assert client_for(nobody).get("/devicelab/").status_code == 403
    assert Client().get("/devicelab/").status_code == 302
    for user in (annotator, curator, reviewers[0]):
        assert client_for(user).get(f"/devicelab/drafts/{draft.pk}/").status_code == 200
    # another annotator does not see a draft assigned to someone else
    assert client_for(annotator2).get(f"/devicelab/drafts/{draft.pk}/").status_code == 404
    assert client_for(annotator2).get(f"/api/devicelab/drafts/{draft.pk}/").status_code == 404
    page = client_for(curator).get("/devicelab/projects/lab/")
    assert page.status_code == 200 and b"Annotation quality (ours)" in page.content


def test_editor_forms_author_and_name_bad_input(draft, annotator):
    client = client_for(annotator)
    url = f"/devicelab/drafts/{draft.pk}/"
    bad = client.post(url, {"op": "photo", "view": "front", "version": "1",
                            "photo": _upload("front.png", b"not an image")})
    assert bad.status_code == 400 and b"photos.front" in bad.content and b"(view front)" in bad.content
    ok = client.post(url, {"op": "photo", "view": "front", "version": "1", "photo": _upload("f.png", photo_bytes())})
    assert ok.status_code == 302
    negative = client.post(url, {"op": "box", "version": "2", "component": "thermostat", "view": "front",
                                 "x1": "400", "y1": "500", "x2": "200", "y2": "250"})
    assert negative.status_code == 400 and b"components.thermostat.boxes.front" in negative.content
    assert client.post(url, {"op": "box", "version": "2", "component": "thermostat", "view": "front",
                             "x1": "200", "y1": "250", "x2": "400", "y2": "500"}).status_code == 302
    page = client.get(url)
    assert b'data-box="200,250,400,500"' in page.content and b'id="graph"' in page.content
    stale = client.post(url, {"op": "box", "version": "2", "component": "light", "view": "front",
                              "x1": "1", "y1": "1", "x2": "9", "y2": "9"})
    assert stale.status_code == 409 and b"changed since you loaded it" in stale.content
    photo = client.get(f"/devicelab/drafts/{draft.pk}/photos/front/")
    assert photo.status_code == 200 and b"".join(photo.streaming_content)[:4] == b"\x89PNG"


def test_autosave_api_and_its_refusals(draft, annotator):
    client = client_for(annotator)
    url = f"/api/devicelab/drafts/{draft.pk}/"
    payload = client.get(url).json()
    assert payload["version"] == 1 and payload["kinds"]["thermostat"] == "dial"
    definition = payload["definition"]
    definition["states"]["off"]["description"] = "Cold and dark."
    saved = client.post(url, json.dumps({"version": 1, "definition": definition}), content_type="application/json")
    assert saved.status_code == 200 and saved.json()["version"] == 2
    stale = client.post(url, json.dumps({"version": 1, "definition": definition}), content_type="application/json")
    assert stale.status_code == 409 and stale.json()["field"] == "version" and stale.json()["version"] == 2
    not_object = client.post(url, json.dumps({"version": 2, "definition": [1]}), content_type="application/json")
    assert not_object.status_code == 400 and not_object.json()["field"] == "definition"
    assert DeviceDraft.objects.get(pk=draft.pk).definition["states"]["off"]["description"] == "Cold and dark."


def _upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def test_live_checks_of_an_unsaved_definition_save_nothing(draft, annotator, annotator2):
    client = client_for(annotator)
    assert client.post(f"/devicelab/drafts/{draft.pk}/", {
        "op": "photo", "view": "front", "version": "1", "photo": _upload("f.png", photo_bytes())}).status_code == 302
    definition = client.get(f"/api/devicelab/drafts/{draft.pk}/").json()["definition"]
    definition["components"]["thermostat"]["boxes"] = {"front": [200, 250, 1200, 500]}
    url = f"/api/devicelab/drafts/{draft.pk}/checks/"
    answer = client.post(url, json.dumps({"definition": definition}), content_type="application/json")
    assert answer.status_code == 200 and answer.json()["version"] == 2
    check = next(c for c in answer.json()["checks"] if c["path"] == "components.thermostat.boxes.front")
    assert check["view"] == "front" and check["level"] == "error" and "1200" in check["message"]
    saved = DeviceDraft.objects.get(pk=draft.pk)
    assert saved.version == 2 and not saved.definition["components"]["thermostat"].get("boxes")
    assert saved.revisions.count() == 2
    not_object = client.post(url, json.dumps({"definition": [1]}), content_type="application/json")
    assert not_object.json()["checks"][0]["message"] == "a device definition must be a JSON object"
    assert client_for(annotator2).post(url, "{}", content_type="application/json").status_code == 404
    assert client.get(url).status_code == 405


def test_overlays_and_a_components_look_from_the_editor_and_the_preview(draft, annotator):
    client = client_for(annotator)
    url = f"/devicelab/drafts/{draft.pk}/"
    client.post(url, {"op": "photo", "view": "front", "version": "1", "photo": _upload("f.png", photo_bytes())})
    client.post(url, {"op": "box", "version": "2", "component": "light", "view": "front",
                      "x1": "750", "y1": "600", "x2": "800", "y2": "660"})
    bad = client.post(url, {"op": "overlays", "version": "3", "state": "low", "view": "front",
                            "components": ["light", "power_switch"]})
    assert bad.status_code == 400 and b"states.low.look.overlays.front[1]" in bad.content
    bad = client.post(url, {"op": "component_look", "version": "3", "state": "low", "component": "light",
                            "values": "on=maybe"})
    assert bad.status_code == 400 and b"states.low.look.components.light.on" in bad.content
    for state in ("off", "low"):
        version = str(DeviceDraft.objects.get(pk=draft.pk).version)
        assert client.post(url, {"op": "overlays", "version": version, "state": state, "view": "front",
                                 "components": ["light"]}).status_code == 302
    version = str(DeviceDraft.objects.get(pk=draft.pk).version)
    assert client.post(url, {"op": "component_look", "version": version, "state": "low", "component": "light",
                             "values": "on=true color=#ff0000"}).status_code == 302
    saved = DeviceDraft.objects.get(pk=draft.pk).definition["states"]["low"]["look"]
    assert saved["overlays"] == {"front": ["light"]} and saved["components"]["light"]["color"] == "#ff0000"
    looks = {}
    for state in ("off", "low"):
        answer = client.get(f"/devicelab/drafts/{draft.pk}/looks/front/?state={state}")
        assert answer.status_code == 200
        looks[state] = b"".join(answer.streaming_content)
    assert looks["off"][:4] == b"\x89PNG" and looks["off"] != looks["low"]
    assert client.get(f"/devicelab/drafts/{draft.pk}/looks/front/?state=nope").status_code == 404
    assert client.get(f"/devicelab/drafts/{draft.pk}/looks/left/").status_code == 404
    assert b'id="look-state"' in client.get(url).content


def _submitted(curator, annotator):
    """A play-tested Heater (tests/access_fixtures.playtest_build), submitted for review."""
    playtest = playtest_build(users={"curator": curator, "annotator": annotator})
    draft = DeviceDraft.objects.get(pk=playtest.draft_id)
    return review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)


def test_a_reviewer_marks_issues_on_views_and_the_author_sees_them_drawn(curator, annotator, reviewers):
    draft = _submitted(curator, annotator)
    reviewer = client_for(reviewers[0])
    url = f"/devicelab/drafts/{draft.pk}/review/"
    page = reviewer.get(url)
    # the reviewer's page: each view's boxes, the graph, the practice task, the issue form
    assert page.status_code == 200
    for needle in (b'data-review-view="front"', b'data-component="thermostat"', b'id="graph"', b'data-edge="states.',
                   b'id="review-playtest"', b'id="review-submit"'):
        assert needle in page.content, needle
    bad = reviewer.post(url, {"verdict": "revise", "issues": json.dumps([{"view": "front", "text": "x",
                                                                           "point": [10, 2000]}])})
    assert bad.status_code == 400 and b"issues[0].point" in bad.content and b"(view front)" in bad.content
    both = [{"view": "top", "text": "y", "point": [1, 1], "box": [1, 1, 5, 5]}]
    assert reviewer.post(url, {"verdict": "revise", "issues": json.dumps(both)}).status_code == 400
    sent = reviewer.post(url, {"verdict": "revise", "issues": json.dumps([
        {"view": "front", "text": "the dial's box misses its detents", "box": [180, 240, 420, 540]},
        {"view": "top", "text": "a second switch here?", "point": [700, 300]}])})
    assert sent.status_code == 302
    draft.refresh_from_db()
    assert draft.state == DeviceDraft.State.NEEDS_REVISION
    assert draft.reviews.get().issues[1] == {"view": "top", "text": "a second switch here?", "point": [700, 300]}
    # the author, in the editor: sent back, the issues drawn where they were marked and listed
    editor = client_for(annotator).get(f"/devicelab/drafts/{draft.pk}/").content.decode()
    assert 'id="sent-back"' in editor
    assert '<rect x="180" y="240" width="240" height="300"' in editor and 'data-at="180, 240, 420, 540"' in editor
    assert '<circle cx="700" cy="300"' in editor and "a second switch here?" in editor
    assert client_for(annotator).get(url).status_code == 200  # the review page reads for the author too
    assert client_for(annotator).post(url, {"verdict": "approve"}).status_code == 403


def test_authoring_time_on_the_draft_the_dashboard_and_the_export(curator, annotator):
    draft = _submitted(curator, annotator)
    # the saves as if made 20 s apart, with one hour away before the submission
    revisions = list(DraftRevision.objects.filter(draft=draft, kind__in=["save", "submit"]).order_by("pk"))
    start = revisions[0].created_at
    for i, revision in enumerate(revisions):
        at = start + timedelta(seconds=20 * i) + (timedelta(hours=1) if revision.kind == "submit" else timedelta())
        DraftRevision.objects.filter(pk=revision.pk).update(created_at=at)
    saves = len(revisions) - 1
    expected_minutes = 20 * (saves - 1) / 60
    editor = client_for(annotator).get(f"/devicelab/drafts/{draft.pk}/").content.decode()
    assert f"{expected_minutes:.1f} min</strong> active" in editor and f"ann {expected_minutes:.1f} min" in editor
    board = client_for(curator).get("/devicelab/projects/t-lab/").content.decode()
    assert f'data-authoring="t-heater">{expected_minutes:.1f}' in board and "2 sessions" in board
    export = client_for(curator).get("/devicelab/projects/t-lab/authoring.csv")
    assert export["Content-Type"].startswith("text/csv")
    lines = export.content.decode().splitlines()
    assert lines[0] == "device_id,category,state,person,active_seconds,edits,sessions,idle_gap_seconds"
    assert lines[1] == f"t-heater,Heater,submitted,ann,{20 * (saves - 1)},{len(revisions)},2,300"
    assert client_for(annotator).get("/devicelab/projects/t-lab/authoring.csv").status_code == 200
