"""Issue 32, quality control: "Honeypots: curators mark adjudicated items as gold; they are mixed into annotators'
queues unannounced, and each annotator's agreement with gold (mask IoU, labels) is on the project dashboard;
reviewers see it beside the item."

Unannounced: the annotator's pages and API answers for a honeypot copy name no gold and show none of its answers
(the roles x pages table at the end: what each role reaches for the copy and the gold item).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import GoldCheck, GoldStandard, Item
from annotation.services.editing import item_save, item_submit
from annotation.services.errors import AnnotationError
from annotation.services.honeypots import gold_mark, honeypots_send
from tests.annotation.conftest import box_rle, client_for, png_bytes
from tests.annotation.test_quality_provenance import accept, reviewer

pytestmark = pytest.mark.django_db

GOLD_TEXT = "the crimson saucer near the lamp"


def _person(django_user_model, name, group):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _client(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def project(project_factory):
    return project_factory()


@pytest.fixture
def gold(project, item_factory, scene_png, django_user_model, curator):
    """An item bob annotated and two reviewers accepted, marked gold by the curator on the dashboard."""
    bob = _person(django_user_model, "bob", "annotator")
    [item] = item_factory(scene_png[0], project=project, assignee=bob)
    saved = item_save(user=bob, item_id=item.pk, version=item.version, texts={"text_label": GOLD_TEXT}, count=1,
                      precise_count=True, instances={"masklet_target": [box_rle(100, 200, 100, 200)]})
    item_submit(user=bob, item_id=item.pk, version=saved.version)
    accept(item, [reviewer(django_user_model, "rob"), reviewer(django_user_model, "rita")])
    response = _client(curator).post(f"/annotation/review/projects/{project.slug}/", {"action": "gold",
                                                                                      "item": item.pk})
    assert response.status_code == 302
    return GoldStandard.objects.get(item=item)


@pytest.fixture
def queue(project, item_factory, annotator):
    """Anna's own open items (other images)."""
    items = []
    for shade in (40, 80, 120):
        items += item_factory(png_bytes(np.full((360, 640, 3), shade, np.uint8)), name=f"shelf-{shade}.png",
                              project=project, assignee=annotator)
    return items


@pytest.fixture
def honeypot(gold, queue, project, annotator, curator):
    response = _client(curator).post(f"/annotation/review/projects/{project.slug}/", {
        "action": "honeypots", "annotators": [annotator.pk], "per_annotator": 1, "seed": 3})
    assert response.status_code == 302
    return Item.objects.get(honeypot_of=gold.item)


def test_a_gold_copy_lands_blank_among_the_annotators_open_items(honeypot, gold, queue, annotator):
    assert honeypot.assignee == annotator and honeypot.state == Item.State.TODO
    assert honeypot.texts == {} and honeypot.instances == {} and honeypot.name == gold.item.name
    positions = sorted(Item.objects.filter(assignee=annotator).values_list("position", flat=True))
    assert len(set(positions)) == len(positions) == 4  # a strict queue order, the copy inside it


def test_only_adjudicated_items_become_gold_and_only_curators_mark_them(project, item_factory, scene_png, annotator,
                                                                       curator):
    [item] = item_factory(scene_png[0], project=project, assignee=annotator)
    with pytest.raises(AnnotationError, match="only adjudicated"):
        gold_mark(user=curator, item_id=item.pk)
    with pytest.raises(AnnotationError, match="Only curators"):
        gold_mark(user=annotator, item_id=item.pk)


def test_no_annotator_gets_a_copy_of_gold_they_annotated(gold, project, curator, django_user_model):
    bob = django_user_model.objects.get(username="bob")
    assert honeypots_send(user=curator, project=project, annotators=[bob], per_annotator=1, seed=1) == []


def test_the_answer_is_scored_against_gold_and_shown_on_the_dashboard_and_to_reviewers(
        honeypot, queue, project, annotator, curator, django_user_model):
    # Anna answers the honeypot: the same mask, the description in other words, the same count.
    saved = item_save(user=annotator, item_id=honeypot.pk, version=honeypot.version,
                      texts={"text_label": "a red disc"}, count=1, precise_count=True,
                      instances={"masklet_target": [box_rle(100, 200, 100, 150)]})
    item_submit(user=annotator, item_id=honeypot.pk, version=saved.version)
    check = GoldCheck.objects.get(copy=honeypot)
    assert check.annotator == annotator and check.mean_iou == pytest.approx(0.5)
    assert not check.labels_match and check.mismatches == ["text_label"]

    board = _client(curator).get(f"/annotation/review/projects/{project.slug}/").content.decode()
    row = re.search(r'<tr data-annotator="anna">(.*?)</tr>', board, re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells == ["anna", "1", "0.500", "1.000", "0 %"]

    # A reviewer opening another item of anna's sees her agreement with gold beside it; the copy is not reviewed.
    mine = queue[0]
    saved = item_save(user=annotator, item_id=mine.pk, version=mine.version, texts={"text_label": "the shelf"},
                      count=1, precise_count=True, instances={"masklet_target": [box_rle(10, 50, 10, 50)]})
    item_submit(user=annotator, item_id=mine.pk, version=saved.version)
    rob = django_user_model.objects.get(username="rob")
    review_queue = _client(rob).get("/annotation/review/").content.decode()
    assert f"/annotation/review/items/{mine.pk}/" in review_queue
    assert f"/annotation/review/items/{honeypot.pk}/" not in review_queue
    page = _client(rob).get(f"/annotation/review/items/{mine.pk}/").content.decode()
    summary = re.search(r'id="gold-summary"[^>]*>(.*?)</p>', page, re.S).group(1)
    assert "anna's agreement with gold: 1 honeypot(s), mean IoU 0.500, labels match 0 %" in summary


def _leaks(text: str, gold: GoldStandard) -> list[str]:
    found = [w for w in ("honeypot", "gold") if re.search(rf"\b{w}", text, re.I)]
    if GOLD_TEXT in text:
        found.append("the gold's description")
    if f"/items/{gold.item_id}/" in text or '"honeypot_of"' in text:
        found.append("the gold item")
    return found


def test_the_annotator_cannot_tell_a_honeypot_and_never_sees_the_gold_answers(honeypot, gold, queue, project,
                                                                              annotator):
    """The roles x pages table for honeypots: the annotator's own pages for the copy look like any item's."""
    web, api = _client(annotator), client_for(annotator)
    ordinary = queue[0]
    pages = {
        "editor": f"/annotation/items/{honeypot.pk}/",
        "item API": f"/api/annotation/items/{honeypot.pk}/",
        "project page": f"/annotation/projects/{project.slug}/",
        "project list": "/annotation/",
        "history": f"/annotation/review/items/{honeypot.pk}/history/",
        "review queue": "/annotation/review/",
    }
    for name, url in pages.items():
        response = (api if "API" in name else web).get(url)
        assert response.status_code == 200, (name, response.status_code)
        assert _leaks(response.content.decode(), gold) == [], name
    # Same page, same URL shape, same keys as an ordinary item of the annotator's.
    assert set(api.get(f"/api/annotation/items/{honeypot.pk}/").json()) == set(
        api.get(f"/api/annotation/items/{ordinary.pk}/").json())
    history = web.get(f"/annotation/review/items/{honeypot.pk}/history/").content.decode()
    assert history.count("<tr") == web.get(f"/annotation/review/items/{ordinary.pk}/history/").content.decode()\
        .count("<tr")
    # And the gold item itself, or the project's dashboard, stays out of reach.
    for url in (f"/annotation/items/{gold.item_id}/", f"/api/annotation/items/{gold.item_id}/",
                f"/annotation/review/items/{gold.item_id}/", f"/annotation/review/items/{gold.item_id}/history/",
                f"/annotation/review/projects/{project.slug}/"):
        response = (api if url.startswith("/api/") else web).get(url)
        assert response.status_code in (403, 404), url
        assert GOLD_TEXT not in response.content.decode(), url
    # After the answer, the copy reads "in review" like any submitted item (no score, no gold).
    saved = item_save(user=annotator, item_id=honeypot.pk, version=honeypot.version, texts={"text_label": "x"},
                      count=1, precise_count=True, instances={"masklet_target": [box_rle(0, 10, 0, 10)]})
    answered = api.post(f"/api/annotation/items/{honeypot.pk}/submit/", {"version": saved.version}, format="json")
    assert answered.status_code == 200 and answered.json()["state"] == "submitted"
    assert _leaks(answered.content.decode(), gold) == []
    assert _leaks(web.get(f"/annotation/items/{honeypot.pk}/").content.decode(), gold) == []


def test_retired_gold_is_sent_out_no_more(gold, queue, project, annotator, curator):
    response = _client(curator).post(f"/annotation/review/projects/{project.slug}/", {"action": "gold_retire",
                                                                                      "item": gold.item_id})
    assert response.status_code == 302 and not GoldStandard.objects.get(pk=gold.pk).active
    with pytest.raises(AnnotationError, match="no gold item"):
        honeypots_send(user=curator, project=project, annotators=[annotator], per_annotator=1, seed=1)
