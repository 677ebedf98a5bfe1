"""Issue 34: the editor's Next button switches items in place; the item's editor data comes as JSON from
/annotation/items/<pk>/editor.json, under the editor page's own access rules and with what the page's config holds."""
from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import Embedding
from annotation.services.editing import item_save

from .conftest import box_rle, png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(item_factory, annotator):
    """Three items of one upload, in the annotator's queue in this order."""
    pngs = [png_bytes(np.full((24, 32, 3), 40 * (k + 1), np.uint8)) for k in range(3)]
    return item_factory(zip_bytes([(f"{k}.png", p) for k, p in enumerate(pngs)]), name="three.zip",
                        assignee=annotator)


def _page_config(client: Client, pk: int) -> dict:
    text = client.get(f"/annotation/items/{pk}/").content.decode()
    start = text.index('<script id="editor-config" type="application/json">') + len(
        '<script id="editor-config" type="application/json">')
    return json.loads(text[start:text.index("</script>", start)])


def test_the_json_holds_what_the_editor_page_config_holds(client, annotator, queue):
    client.force_login(annotator)
    item_save(user=annotator, item_id=queue[1].pk, version=queue[1].version, texts={"text_label": "the grey one"},
              count=1, precise_count=True, instances={"masklet_target": [box_rle(2, 9, 3, 12, size=(24, 32))]})
    answer = client.get(f"/annotation/items/{queue[1].pk}/editor.json")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    data = answer.json()
    assert data["config"] == _page_config(client, queue[1].pk)
    assert data["config"]["item"]["texts"] == {"text_label": "the grey one"}
    assert data["config"]["next_item"] == queue[2].pk  # the queue the page's Next button takes
    assert data["page"]["name"] == queue[1].name and data["page"]["title"] == f"Edit {queue[1].name}"
    # Asking for it opened the item as the page does: its embedding (and the next item's) queued.
    assert Embedding.objects.filter(image__items=queue[1]).exists()
    assert Embedding.objects.filter(image__items=queue[2]).exists()


def test_the_json_has_the_pages_access_rules(client, annotator, curator, item_factory, project_factory, small_png,
                                            django_user_model):
    project = project_factory()
    [theirs] = item_factory(small_png, project=project)
    bob = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    bob.groups.add(Group.objects.get_or_create(name="annotator")[0])
    [bobs] = item_factory(small_png, name="b.png", project=project, assignee=bob)
    url = f"/annotation/items/{bobs.pk}/editor.json"
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    client.force_login(annotator)
    refused = client.get(url)
    # the page the editor then opens says whose item it is (issue 32)
    assert refused.status_code == 403 and refused.json()["page"] == f"/annotation/items/{bobs.pk}/"
    assert client.get(f"/annotation/items/{bobs.pk}/").status_code == 403  # the same rule as the page
    assert client.get(f"/annotation/items/{theirs.pk}/editor.json").status_code == 403
    assert client.get("/annotation/items/999999/editor.json").status_code == 404
    assert client.post(url).status_code == 405
    curators = Client()
    curators.force_login(curator)
    assert curators.get(url).status_code == 200
