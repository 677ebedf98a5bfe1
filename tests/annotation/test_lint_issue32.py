"""Issue 32: "The linter says "No findings." on an empty item, and a count of 5 with 2 instances passes unless
"precise count" is ticked."

An empty item's findings (stored at upload and shown when the editor opens) name what is missing; a count that
contradicts the number of instances is a finding either way: an error with precise count ticked, otherwise a
warning that the annotator may override with a reason (the scorer grades such a count as approximate)."""
import json
import re

import pytest

from annotation.services.editing import item_save, item_submit
from annotation.services.errors import AnnotationError
from tests.annotation.conftest import box_rle

pytestmark = pytest.mark.django_db


def _box(y1, y2, x1, x2):
    return box_rle(y1, y2, x1, x2, size=(30, 40))


def test_an_empty_item_is_not_no_findings(client, annotator, item_factory, small_png):
    """"The linter says "No findings." on an empty item" """
    [item] = item_factory(small_png, assignee=annotator)
    item.refresh_from_db()
    assert {f["code"] for f in item.findings} >= {"missing-description", "missing-count"}
    item.findings = []  # as stored before this fix
    item.save(update_fields=["findings"])
    client.force_login(annotator)
    page = client.get(f"/annotation/items/{item.pk}/").content.decode()
    config = json.loads(re.search(r'id="editor-config"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert {f["code"] for f in config["item"]["findings"]} >= {"missing-description", "missing-count"}


def test_a_count_of_five_with_two_instances_is_a_finding_without_precise_count(annotator, item_factory, small_png):
    """"a count of 5 with 2 instances passes unless "precise count" is ticked" """
    [item] = item_factory(small_png, assignee=annotator)
    two = {"masklet_target": [_box(0, 10, 0, 10), _box(15, 25, 15, 25)]}
    item = item_save(user=annotator, item_id=item.pk, version=item.version, texts={"text_label": "the red mugs"},
                     count=5, precise_count=False, instances=two)
    [finding] = item.findings
    assert (finding["code"], finding["severity"]) == ("count-instances-differ", "warning")
    with pytest.raises(AnnotationError):
        item_submit(user=annotator, item_id=item.pk, version=item.version)
    item = item_save(user=annotator, item_id=item.pk, version=item.version, texts={"text_label": "the red mugs"},
                     count=5, precise_count=True, instances=two)
    assert [(f["code"], f["severity"]) for f in item.findings] == [("count-instances-mismatch", "error")]
