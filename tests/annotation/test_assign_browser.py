"""Curators assign items by ticking them on the project page (thumbnails, state filter, bulk assign) in Chromium."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.models import Item
from annotation.services.projects import images_upload
from tests.annotation.conftest import png_bytes, zip_bytes
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_curator_ticks_items_and_assigns_them_in_bulk(live_server, page, curator, annotator, project_factory):
    project = project_factory()
    shots = [(f"batch/{k}.png", png_bytes(np.full((30, 40, 3), 40 * k, np.uint8))) for k in range(4)]
    images_upload(user=curator, name="batch.zip", data=zip_bytes(shots), project=project)
    items = list(project.items.order_by("position"))
    Item.objects.filter(pk=items[3].pk).update(state=Item.State.ACCEPTED)

    login_page(page, live_server.url, "carol", "pw-carol-123")
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/")
    assert len(page.query_selector_all("#items img.ann-thumb")) == 4
    page.wait_for_function("() => [...document.querySelectorAll('#items img.ann-thumb')].every(i => i.naturalWidth === 40)")

    # Only the items still to do, then tick two of them and assign them to anna.
    page.click(".ann-filters a:text('to do')")
    page.wait_for_url("**?state=todo")
    assert len(page.query_selector_all('#items tbody input[name="items"]')) == 3
    page.check(f'#items input[value="{items[0].pk}"]')
    page.check(f'#items input[value="{items[2].pk}"]')
    page.select_option("#id_assignee", label="anna")
    page.click("button[name=assign]")
    page.wait_for_selector(".messages, .message, [role=status], body")
    assert {i.pk: i.assignee_id for i in Item.objects.filter(project=project)} == {
        items[0].pk: annotator.pk, items[1].pk: None, items[2].pk: annotator.pk, items[3].pk: None}

    # "Tick all shown" ticks every item the filter shows, and nothing else is assigned.
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/?state=accepted")
    page.check("#tick-all")
    assert page.is_checked(f'#items input[value="{items[3].pk}"]')
    page.select_option("#id_assignee", label="anna")
    page.click("button[name=assign]")
    page.wait_for_load_state()
    assert Item.objects.get(pk=items[3].pk).assignee_id == annotator.pk
    assert Item.objects.get(pk=items[1].pk).assignee_id is None

    # Nothing ticked: a clear error, nothing assigned.
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/")
    page.click("button[name=assign]")
    assert "Tick at least one item" in page.text_content("#assign-form")
