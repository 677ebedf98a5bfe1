"""Helpers for driving the annotation editor in Chromium."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from annotation.core.segmentation import EmbeddingCache
from tests.annotation.conftest import png_bytes


def to_client(page, x: float, y: float) -> tuple[float, float]:
    """Image pixel -> page coordinates, through the editor's current zoom and pan."""
    return tuple(page.evaluate(
        """([x, y]) => { const v = window.annotationEditor.state.view;
            const r = document.getElementById('canvas').getBoundingClientRect();
            return [r.left + v.tx + x * v.s, r.top + v.ty + y * v.s]; }""", [x, y]))


def instance_areas(page, masklet: str = "masklet_target") -> list[int]:
    """The pixel areas of the editor's instances on one layer."""
    return page.evaluate("(m) => (window.annotationEditor.state.instances[m] || []).map(i => i.area)", masklet)


def first_and_flipped_items(png: bytes, embedding, project_factory, item_factory, assignee, settings):
    """Two items of one project for `assignee`: the scene and its mirror image (whose features differ), the
    first's embedding cached. Returns both and the embedding cache."""
    project = project_factory()
    [first] = item_factory(png, project=project, assignee=assignee)
    pixels = np.array(Image.open(io.BytesIO(png)).convert("RGB"))
    [second] = item_factory(png_bytes(np.ascontiguousarray(pixels[:, ::-1])), project=project, name="flipped.png",
                            assignee=assignee)
    cache = EmbeddingCache(settings.SAM_EMBEDDING_DIR)
    cache.put(first.images.get().sha256, embedding)
    return first, second, cache
