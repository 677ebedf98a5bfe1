"""Issue 32, review: "a validation error (missing comment) clears the verdict and reasons ticked; ... raw keys
(`text_label`, `masklet_target`) instead of labels; a new split's tab appears only once you are on it."""
import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.services.editing import item_save, item_submit
from tests.annotation.conftest import box_rle

pytestmark = pytest.mark.django_db


@pytest.fixture
def rob(django_user_model):
    user = django_user_model.objects.create_user("rob", password="pw-rob-123")
    user.groups.add(Group.objects.get_or_create(name="reviewer")[0])
    client = Client()
    client.force_login(user)
    return client


def _checked(html: str, name: str) -> list[str]:
    return re.findall(rf'<input type="(?:radio|checkbox)" name="{name}" value="([a-z_]+)"[^>]*\bchecked\b', html)


def test_a_missing_comment_keeps_the_verdict_and_reasons_ticked(submitted, rob):
    """"a validation error (missing comment) clears the verdict and reasons ticked" """
    page = rob.post(f"/annotation/review/items/{submitted.pk}/", {
        "version": submitted.version, "round": 1, "verdict": "revise",
        "reasons": ["mask_quality", "label_error"], "comment": "", "markers": "[]"})
    assert page.status_code == 400
    html = page.content.decode()
    assert "needs a comment" in html
    assert _checked(html, "verdict") == ["revise"]
    assert _checked(html, "reasons") == ["mask_quality", "label_error"]


def test_the_review_page_shows_labels_not_raw_keys(submitted, rob):
    """"raw keys (`text_label`, `masklet_target`) instead of labels" """
    html = rob.get(f"/annotation/review/items/{submitted.pk}/").content.decode()
    labels = html[html.index('id="labels"'):html.index('id="findings"')]
    assert "Target Object Description" in labels
    assert "Each object matching the description" in labels
    assert not re.search(r"<dt>\s*(text_label|masklet_target)\s*</dt>", labels), labels


def test_a_new_split_has_its_tab_on_the_board_before_you_are_on_it(item_factory, annotator, scene_png, curator,
                                                                    django_user_model, client,
                                                                    django_capture_on_commit_callbacks):
    """"a new split's tab appears only once you are on it" """
    from annotation.review import services as rs
    from scoring.benchmarks.epic.plugin import SLUG

    [item] = item_factory(scene_png[0], assignee=annotator)
    item = item_submit(user=annotator, item_id=item.pk, version=item_save(
        user=annotator, item_id=item.pk, version=item.version, texts={"text_label": "the red disc"}, count=1,
        precise_count=True, instances={"masklet_target": [box_rle(100, 200, 100, 200)]}).version)
    for name in ("rob", "rita"):
        reviewer = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
        reviewer.groups.add(Group.objects.get_or_create(name="reviewer")[0])
        item.refresh_from_db()
        rs.review_open(user=reviewer, item=item)
        rs.review_submit(user=reviewer, item_id=item.pk, version=item.version,
                         round=rs.item_progress(item).current_round, verdict="accept")
    curator_client = Client()
    curator_client.force_login(curator)
    readers = {"anonymous": client, "curator": curator_client}
    for reader in readers.values():  # the board as it was read (and cached) before the publish
        assert reader.get(f"/leaderboard/{SLUG}/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        rs.items_publish(user=curator, item_ids=[item.pk], split_name="walkthrough", hidden=False)
    for who, reader in readers.items():
        board = reader.get(f"/leaderboard/{SLUG}/").content.decode()
        assert 'href="?split=walkthrough"' in board, who
