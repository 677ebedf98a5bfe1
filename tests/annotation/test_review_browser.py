"""The whole review workflow in a real Chromium: annotate with clicks and brush (classical backend), submit,
two reviews by two reviewer accounts, publish, and see the item as a sample of the split."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from annotation.models import AuditEvent, Item, Review
from scoring.models import Sample
from tests.annotation.browser_helpers import instance_areas, to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT_DIR = Path(os.environ.get("ANNOTATION_SCREENSHOTS", "/tmp"))


def _switch(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    login_page(page, base, username, f"pw-{username}-123")


def _review(page, base: str, item_id: int, *, marker: tuple[float, float] | None = None, shot: str = "") -> None:
    page.goto(f"{base}/annotation/review/")
    page.click(f"#review-queue a[href='/annotation/review/items/{item_id}/']")
    page.wait_for_function("() => window.reviewPage && window.reviewPage.ready === 1")
    if marker:
        page.fill("#marker-note", "edge looks soft")
        canvas = page.locator(".review-canvas").first
        scale = canvas.bounding_box()["width"] / 640
        canvas.click(position={"x": marker[0] * scale, "y": marker[1] * scale})  # scrolls it into view first
        page.wait_for_selector("#marker-list li")
    page.check("input[name=verdict][value=accept]")
    if shot:
        page.screenshot(path=str(SCREENSHOT_DIR / shot), full_page=True)
    page.click("#btn-review")
    page.wait_for_selector(".messages li")


def test_annotate_submit_two_reviews_publish_and_see_the_sample(
    live_server, page, celery_eager, item_factory, annotator, curator, django_user_model, scene_png
):
    from scoring.models import Benchmark

    # A transactional test before this one may have flushed the rows the migrations made.
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    for name in ("rob", "rita"):
        django_user_model.objects.create_user(name, password=f"pw-{name}-123").groups.add(
            Group.objects.get_or_create(name="reviewer")[0])
    data, truth = scene_png  # 640x360: a red disc at (192, 180) r=64, a blue rectangle x 384-544, y 90-252
    [item] = item_factory(data, assignee=annotator)
    base = live_server.url

    # The annotator: a positive click on the disc (classical backend), a brush stroke, labels, submit.
    login_page(page, base, "anna", "pw-anna-123")
    page.goto(f"{base}/annotation/items/{item.pk}/")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    [area] = instance_areas(page)
    assert abs(area - truth["disc"].sum()) < 0.1 * truth["disc"].sum()
    page.keyboard.press("b")
    page.mouse.move(*to_client(page, 250, 180))
    page.mouse.down()
    page.mouse.move(*to_client(page, 280, 180), steps=5)
    page.mouse.up()
    [brushed] = instance_areas(page)
    assert brushed > area
    page.fill("#t-text_label", "the red disc")
    page.fill("#f-count", "1")
    page.check("#f-precise")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
    assert Item.objects.get(pk=item.pk).state == Item.State.SUBMITTED

    # Two reviewers, one after the other; the first one also drops a marker on the image.
    _switch(page, base, "rob")
    _review(page, base, item.pk, marker=(260, 180), shot="review-round-1.png")
    assert Item.objects.get(pk=item.pk).state == Item.State.SUBMITTED
    page.goto(f"{base}/annotation/review/")
    assert page.locator(f"#review-queue a[href='/annotation/review/items/{item.pk}/']").count() == 0  # not twice
    _switch(page, base, "rita")
    page.goto(f"{base}/annotation/review/")
    assert "2 of 2" in page.text_content("#review-queue")
    _review(page, base, item.pk)
    assert Item.objects.get(pk=item.pk).state == Item.State.ACCEPTED
    assert [r.reviewer.username for r in Review.objects.order_by("pk")] == ["rob", "rita"]
    assert Review.objects.first().markers[0]["note"] == "edge looks soft"

    # The curator publishes it into a split of EPIC-Bench and sees it there, linked to its history.
    _switch(page, base, "carol")
    page.goto(f"{base}/annotation/review/projects/{item.project.slug}/")
    assert page.text_content("#by-state").count("accepted") == 1
    page.fill("#split", "annotated")
    page.click("#btn-publish")
    page.wait_for_selector(".messages li")
    assert "Published 1 item(s) into epic-bench/annotated" in page.text_content(".messages")
    page.screenshot(path=str(SCREENSHOT_DIR / "review-dashboard.png"), full_page=True)
    page.click("#published-splits a")
    page.wait_for_selector("#samples")
    sample = Sample.objects.get(split__name="annotated")
    row = page.locator(f"#samples tr[data-key='{sample.key}']")
    assert "Target Object Description: the red disc" in row.text_content()
    assert page.text_content("#split-version") == "version 1"
    page.wait_for_function("() => [...document.querySelectorAll('#samples img')].every(i => i.complete && i.naturalWidth > 0)")
    page.screenshot(path=str(SCREENSHOT_DIR / "review-split-samples.png"), full_page=True)
    row.locator("a").click()
    page.wait_for_selector("#audit")
    assert "publish" in page.text_content("#audit") and "rita" in page.text_content("#reviews")
    assert Item.objects.get(pk=item.pk).state == Item.State.PUBLISHED
    assert list(AuditEvent.objects.filter(item=item).order_by("pk").values_list("action", flat=True)) == [
        "save", "submit", "review_pass", "accept", "publish"]


def test_revise_shows_comments_and_marker_in_the_editor_the_new_version_shows_its_diff_and_two_tabs_conflict(
    live_server, page, celery_eager, item_factory, annotator, django_user_model, scene_png
):
    import numpy as np

    from annotation.core import rle
    from annotation.services.editing import item_save, item_submit

    django_user_model.objects.create_user("rob", password="pw-rob-123").groups.add(
        Group.objects.get_or_create(name="reviewer")[0])
    [item] = item_factory(scene_png[0], assignee=annotator)
    mask = np.zeros((360, 640), bool)
    mask[120:240, 140:250] = True
    saved = item_save(user=annotator, item_id=item.pk, version=item.version, count=1, precise_count=True,
                      texts={"text_label": "the red disc"}, instances={"masklet_target": [rle.encode(mask)]})
    item_submit(user=annotator, item_id=item.pk, version=saved.version)
    base = live_server.url

    login_page(page, base, "rob", "pw-rob-123")
    page.goto(f"{base}/annotation/review/items/{item.pk}/")
    page.wait_for_function("() => window.reviewPage.ready === 1")
    page.check("input[name=verdict][value=revise]")
    page.check("input[name=reasons][value=mask_quality]")
    page.fill("#comment", "the mask is a box, trace the disc")
    page.fill("#marker-note", "corner outside the disc")
    canvas = page.locator(".review-canvas")
    scale = canvas.bounding_box()["width"] / 640
    canvas.click(position={"x": 142 * scale, "y": 122 * scale})
    page.wait_for_selector("#marker-list li")
    page.click("#btn-review")
    page.wait_for_selector(".messages li")
    assert Item.objects.get(pk=item.pk).state == Item.State.NEEDS_REVISION

    # The annotator sees the comment and the marker in the editor, in two tabs at once.
    _switch(page, base, "anna")
    page.goto(f"{base}/annotation/items/{item.pk}/")
    page.wait_for_selector("#review-comments")
    assert "the mask is a box, trace the disc" in page.text_content("#review-comments")
    assert "corner outside the disc" in page.text_content("#review-comments")
    assert page.locator("#review-comments svg circle").count() == 1
    page.screenshot(path=str(SCREENSHOT_DIR / "review-comments-in-editor.png"))
    second = page.context.new_page()
    second.goto(f"{base}/annotation/items/{item.pk}/")
    second.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.instances['masklet_target'].length === 1")
    # Tab 1 saves a change; tab 2, still on the old version, is refused with a clear message.
    page.fill("#t-text_label", "the round red disc")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    second.fill("#t-text_label", "a different text from the second tab")
    second.wait_for_function("() => document.getElementById('save-status').textContent.includes('changed since you loaded it')")
    assert Item.objects.get(pk=item.pk).texts["text_label"] == "the round red disc"
    second.close()

    # The new version (the mask brushed wider) goes back to round 1, where the reviewer sees the diff.
    page.click("#instances li")  # select the instance, so the brush adds to it
    page.keyboard.press("b")
    page.mouse.move(*to_client(page, 200, 180))
    page.mouse.down()
    page.mouse.move(*to_client(page, 262, 180), steps=4)
    page.mouse.up()
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    page.click("#btn-submit")
    try:
        page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
    except PlaywrightTimeoutError:
        raise AssertionError(f"not submitted: {page.text_content('#save-status')!r} {page.text_content('#findings')!r}") from None
    _switch(page, base, "rob")
    page.goto(f"{base}/annotation/review/items/{item.pk}/")
    page.wait_for_function("() => window.reviewPage.ready === 1")
    diff = page.text_content("#diff")
    assert "Target Object Description" in diff and "the round red disc" in diff and "#1 changed (IoU" in diff
    assert page.text_content("#round") == "1"
    page.screenshot(path=str(SCREENSHOT_DIR / "review-diff.png"), full_page=True)


def test_blind_second_annotation_in_the_editor_flags_a_disagreeing_item_for_the_reviewer(
    live_server, page, celery_eager, item_factory, annotator, curator, django_user_model, scene_png
):

    from annotation.core import rle
    from annotation.models import SecondOpinion
    from annotation.review import services as review_services
    from annotation.services.editing import item_save, item_submit

    django_user_model.objects.create_user("ben", password="pw-ben-123").groups.add(
        Group.objects.get_or_create(name="annotator")[0])
    django_user_model.objects.create_user("rob", password="pw-rob-123").groups.add(
        Group.objects.get_or_create(name="reviewer")[0])
    data, truth = scene_png
    [item] = item_factory(data, assignee=annotator)
    saved = item_save(user=annotator, item_id=item.pk, version=item.version, count=1, precise_count=True,
                      texts={"text_label": "the red shape"},
                      instances={"masklet_target": [rle.encode(truth["disc"])]})
    item_submit(user=annotator, item_id=item.pk, version=saved.version)
    base = live_server.url

    # The curator sends it to a blind second annotation on the dashboard.
    login_page(page, base, "carol", "pw-carol-123")
    page.goto(f"{base}/annotation/review/projects/{item.project.slug}/")
    page.fill("#share", "1")
    page.locator("#second-opinion-form label", has_text="ben").locator("input").check()
    page.click("#second-opinion-form button[type=submit]")
    page.wait_for_selector(".messages li")
    assert "Sent 1 item(s)" in page.text_content(".messages")

    # Ben sees only the image and the description, and marks the blue rectangle (he reads it differently).
    _switch(page, base, "ben")
    page.goto(f"{base}/annotation/review/")
    page.click("#my-second-opinions a")
    page.wait_for_selector("#blind-description")
    assert page.text_content("#blind-description") == "the red shape"
    page.wait_for_function("() => window.annotationEditor")  # the editor's modules load after the page is parsed
    assert page.evaluate("() => window.annotationEditor.state.instances['masklet_target'].length") == 0
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    page.mouse.click(*to_client(page, 464, 171))
    page.wait_for_selector("#proposals button")
    page.fill("#f-count", "1")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    page.screenshot(path=str(SCREENSHOT_DIR / "review-blind-editor.png"))
    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
    opinion = SecondOpinion.objects.get(item=item)
    assert opinion.status == "done" and opinion.low_agreement and opinion.f1 == 0.0 and opinion.count_equal

    # The reviewer is told the description may be ambiguous, with that reason ticked.
    _switch(page, base, "rob")
    page.goto(f"{base}/annotation/review/")
    assert "possibly ambiguous" in page.text_content("#review-queue")
    page.goto(f"{base}/annotation/review/items/{item.pk}/")
    assert "Possibly ambiguous description" in page.text_content("#agreement-flag")
    assert page.is_checked("input[name=reasons][value=ambiguous_description]")
    assert review_services.low_agreement_flags(item)
