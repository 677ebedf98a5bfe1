"""The browser decoder's two downloads: SAM's ONNX decoder and an image's float16 embedding (issue 17)."""
import numpy as np
import onnx
import pytest

from annotation import tasks
from annotation.core import sam_onnx
from annotation.models import Embedding

from .conftest import client_for

pytestmark = pytest.mark.django_db


def test_status_names_the_decoder_and_features_which_download_as_the_cache_holds_them(
    annotator_client, sam_scene_item, sam_scene_embedding
):
    item, _ = sam_scene_item
    image = item.images.get()
    status = annotator_client.get(f"/api/annotation/images/{image.pk}/embedding/").json()
    assert status["status"] == "ready" and status["model_key"] == "sam-vit_b"
    browser = status["browser"]
    assert browser["features_url"] == f"/api/annotation/images/{image.pk}/embedding/features/"

    features = annotator_client.get(browser["features_url"])
    assert features.status_code == 200 and features["Content-Type"] == "application/octet-stream"
    assert features["X-Embedding-Dtype"] == "float16" and features["X-Embedding-Shape"] == "1,256,64,64"
    assert (features["X-Image-Size"], features["X-Input-Size"]) == ("360,640", "576,1024")
    array = np.frombuffer(features.content, dtype="<f2").reshape(1, 256, 64, 64)
    assert len(features.content) == 2 * 2**20
    np.testing.assert_array_equal(array, sam_scene_embedding.features)

    decoder = annotator_client.get(browser["decoder_url"])
    assert decoder.status_code == 200
    model = onnx.load_from_string(b"".join(decoder.streaming_content))
    assert [i.name for i in model.graph.input] == list(sam_onnx.INPUT_NAMES)
    assert [o.name for o in model.graph.output] == list(sam_onnx.OUTPUT_NAMES)
    assert "immutable" in decoder["Cache-Control"]


def test_a_decoder_of_other_weights_or_model_is_404(annotator_client, sam_backend):
    fingerprint = sam_backend.decoder_fingerprint()
    assert annotator_client.get(f"/api/annotation/decoders/sam-vit_b/{fingerprint}.onnx").status_code == 200
    assert annotator_client.get("/api/annotation/decoders/sam-vit_b/0123456789abcdef.onnx").status_code == 404
    assert annotator_client.get(f"/api/annotation/decoders/sam-vit_h/{fingerprint}.onnx").status_code == 404


def test_features_are_404_until_the_embedding_exists_and_for_other_peoples_images(
    annotator_client, annotator, item_factory, scene_png, sam_backend, django_user_model
):
    [item] = item_factory(scene_png[0], assignee=annotator)
    image = item.images.get()
    url = f"/api/annotation/images/{image.pk}/embedding/features/"
    response = annotator_client.get(url)
    assert response.status_code == 404 and "No sam-vit_b embedding" in response.json()["detail"]
    status = annotator_client.get(f"/api/annotation/images/{image.pk}/embedding/").json()
    assert status["status"] == Embedding.Status.QUEUED and status["browser"] is None

    stranger = django_user_model.objects.create_user("sam", password="pw-sam-12345")
    assert client_for(stranger).get(url).status_code == 404


def test_the_classical_backend_offers_no_browser_decoder(annotator_client, annotator, item_factory, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    image = item.images.get()
    row = Embedding.objects.get_or_create(image=image, model_key="classic")[0]
    assert tasks.compute_embedding(row.pk) == "ready"
    status = annotator_client.get(f"/api/annotation/images/{image.pk}/embedding/").json()
    assert status["status"] == "ready" and status["browser"] is None
    assert annotator_client.get(f"/api/annotation/images/{image.pk}/embedding/features/").status_code == 404


def test_anonymous_requests_get_no_decoder_or_features(api_client, sam_scene_item, sam_backend):
    item, _ = sam_scene_item
    image = item.images.get()
    assert api_client.get(f"/api/annotation/images/{image.pk}/embedding/features/").status_code in (401, 403)
    url = f"/api/annotation/decoders/sam-vit_b/{sam_backend.decoder_fingerprint()}.onnx"
    assert api_client.get(url).status_code in (401, 403)
