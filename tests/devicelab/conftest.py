"""Device lab fixtures: people in each role, a project, a Heater draft, and deterministic photos drawn here."""
from __future__ import annotations

import io

import pytest
from PIL import Image as PILImage
from PIL import ImageDraw

from devicelab.services import drafts as draft_services
from tests.conftest import user_in_group


@pytest.fixture(autouse=True)
def _embedding_dir(settings, tmp_path_factory):
    settings.SAM_EMBEDDING_DIR = tmp_path_factory.mktemp("embeddings")
    settings.SAM_CHECKPOINT = ""


def photo_bytes(view: str = "front", size=(640, 480), fmt="PNG", exif_orientation: int | None = None) -> bytes:
    """A drawn photo of a heater's face: a body, a dial (front) or a switch (top), a button and a lamp."""
    image = PILImage.new("RGB", size, (236, 232, 220))
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.rectangle([w * 0.1, h * 0.1, w * 0.9, h * 0.9], fill=(200, 196, 186))
    if view == "front":
        draw.ellipse([w * 0.2, h * 0.25, w * 0.4, h * 0.5], fill=(40, 40, 40))  # the dial
        draw.rectangle([w * 0.55, h * 0.3, w * 0.65, h * 0.4], fill=(180, 40, 40))  # the mode button
        draw.ellipse([w * 0.75, h * 0.6, w * 0.8, h * 0.66], fill=(250, 170, 40))  # the lamp
    else:
        draw.rectangle([w * 0.3, h * 0.4, w * 0.4, h * 0.6], fill=(30, 30, 90))  # the switch
    buffer = io.BytesIO()
    kwargs = {}
    if exif_orientation is not None:
        exif = PILImage.Exif()
        exif[0x0112] = exif_orientation
        kwargs["exif"] = exif.tobytes()
    image.save(buffer, format=fmt, **kwargs)
    return buffer.getvalue()


@pytest.fixture
def curator(django_user_model):
    return user_in_group(django_user_model, "cora", "curator")


@pytest.fixture
def annotator(django_user_model):
    return user_in_group(django_user_model, "ann", "annotator")


@pytest.fixture
def annotator2(django_user_model):
    return user_in_group(django_user_model, "bea", "annotator")


@pytest.fixture
def reviewers(django_user_model):
    return user_in_group(django_user_model, "rev1", "reviewer"), user_in_group(django_user_model, "rev2", "reviewer")


@pytest.fixture
def project(curator):
    return draft_services.project_create(user=curator, name="Lab appliances", slug="lab")


@pytest.fixture
def draft(curator, annotator, project):
    return draft_services.draft_create(user=curator, project=project, category="Heater", device_id="heater-lab",
                                       assignee=annotator)
