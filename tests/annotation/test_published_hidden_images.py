"""Items published into a split with hidden ground truth: their images are not public media; the curator's split
page shows them, an anonymous request gets 404."""
import pytest
from django.test import Client

from annotation.review import services as rs
from scoring.models import Sample
from tests.annotation.test_review_services import _accepted, reviewers  # noqa: F401 - the reviewers fixture

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("hidden", [True, False])
def test_published_images_follow_the_splits_disclosure(item_factory, annotator, reviewers, curator,
                                                        scene_png, hidden):
    [item] = item_factory(scene_png[0], assignee=annotator)
    _accepted(item, annotator, reviewers)
    split, _ = rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated", hidden=hidden)
    url = Sample.objects.get(split=split).inputs["images"][0]["url"]
    expected = "/media/hidden/epic-bench/annotated/img/" if hidden else "/media/public/epic-bench/img/"
    assert url.startswith(expected)
    curator_client = Client()
    curator_client.force_login(curator)
    page = curator_client.get(f"/annotation/review/splits/{split.pk}/")
    assert page.status_code == 200 and f'src="{url}"' in page.content.decode()
    image = curator_client.get(url)
    assert image.status_code == 200 and b"".join(image.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"
    assert Client().get(url).status_code == (404 if hidden else 200)
