"""Fixtures for the annotation app: roles, projects, drawn images, uploads."""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from PIL import Image as PILImage

from annotation import embeddings
from annotation.core import rle
from annotation.core.segmentation import Embedding as SamEmbedding
from annotation.core.segmentation import EmbeddingCache, SamBackend
from annotation.services.editing import item_save, item_submit
from tests.annotation.core.conftest import drawn_scene  # the drawn test images of the core tests


@pytest.fixture(autouse=True)
def _embedding_dir(settings, tmp_path_factory):
    settings.SAM_EMBEDDING_DIR = tmp_path_factory.mktemp("embeddings")
    settings.SAM_CHECKPOINT = ""


def png_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    PILImage.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


def zip_bytes(entries: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def box_rle(y1, y2, x1, x2, size=(360, 640)) -> dict:
    """The RLE of a filled rectangle, rows y1:y2 and columns x1:x2, on an image of `size` (h, w)."""
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


@pytest.fixture
def submitted(item_factory, annotator, scene_png):
    """An item of the drawn scene the annotator labelled ("the red disc", one target) and submitted for review."""
    [item] = item_factory(scene_png[0], assignee=annotator)
    saved = item_save(user=annotator, item_id=item.pk, version=item.version,
                      texts={"text_label": "the red disc"}, count=1, precise_count=True,
                      instances={"masklet_target": [box_rle(100, 200, 100, 200)]})
    return item_submit(user=annotator, item_id=item.pk, version=saved.version)


@pytest.fixture
def scene_png() -> tuple[bytes, dict[str, np.ndarray]]:
    image, truth = drawn_scene(height=360, width=640)
    return png_bytes(image), truth


@pytest.fixture
def small_png() -> bytes:
    return png_bytes(np.full((30, 40, 3), 90, np.uint8))


@pytest.fixture
def curator(django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("carol", password="pw-carol-123")
    user.groups.add(Group.objects.get_or_create(name="curator")[0])
    return user


@pytest.fixture
def annotator(django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("anna", password="pw-anna-123")
    user.groups.add(Group.objects.get_or_create(name="annotator")[0])
    return user


def client_for(user):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def curator_client(curator):
    return client_for(curator)


@pytest.fixture
def annotator_client(annotator):
    return client_for(annotator)


@pytest.fixture
def project_factory(curator):
    from annotation.services.projects import project_create

    def make(leaf: str = "TargetLocalization/BasicAttributes/Color", slug: str = "colors", **kwargs):
        return project_create(user=curator, name=slug.title(), slug=slug, leaf=leaf, **kwargs)

    return make


@pytest.fixture
def item_factory(curator, project_factory):
    """Items uploaded into a project (through the upload service) and assigned."""
    from annotation.services.projects import images_upload, items_assign

    def make(data: bytes, *, name: str = "scene.png", project=None, assignee=None):
        project = project or project_factory()
        result = images_upload(user=curator, name=name, data=data, project=project)
        if assignee is not None:
            items_assign(user=curator, items=result.items, assignee=assignee)
        return result.items

    return make


# --- SAM with random weights (no checkpoint is ever downloaded) and its browser decoder ----------------------


@pytest.fixture(scope="session")
def sam_random(tmp_path_factory) -> tuple[SamBackend, object]:
    """A seeded random vit_b and the folder its ONNX decoder is exported to: both once per test session."""
    import torch
    from segment_anything import sam_model_registry

    torch.manual_seed(0)
    backend = SamBackend(sam_model_registry["vit_b"](checkpoint=None), model_type="vit_b")
    decoders = tmp_path_factory.mktemp("sam-decoders")
    backend.onnx_decoder(decoders)
    return backend, decoders


@pytest.fixture(scope="session")
def sam_scene_embedding():
    """An embedding of the 640x360 scene as SamBackend.embed shapes it (float16, 1x256x64x64, input 576x1024).

    Seeded features, not the random encoder's output: the encoder of random weights says nothing about the
    image either, and running it costs a minute on a busy CPU. The tests compare decoders on the same features."""
    features = np.random.default_rng(17).normal(0, 0.5, size=(1, 256, 64, 64)).astype(np.float16)
    return SamEmbedding("sam-vit_b", (360, 640), (576, 1024), features)


@pytest.fixture
def sam_backend(sam_random, settings):
    """Installs the random SAM as the site's backend, with its exported decoder."""
    backend, decoders = sam_random
    settings.SAM_DECODER_DIR = decoders
    settings.SAM_BROWSER_DECODER = True
    embeddings.segmentation_backend_install(backend)
    yield backend
    embeddings.segmentation_backend_install(None)


@pytest.fixture
def sam_scene_item(sam_backend, sam_scene_embedding, scene_png, item_factory, annotator, settings):
    """An item of the scene assigned to anna, whose SAM embedding is already cached."""
    data, truth = scene_png
    [item] = item_factory(data, assignee=annotator)
    EmbeddingCache(settings.SAM_EMBEDDING_DIR).put(item.images.get().sha256, sam_scene_embedding)
    return item, truth
