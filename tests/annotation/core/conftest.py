"""Drawn test images with known shapes, for the segmentation backends."""
from __future__ import annotations

import cv2
import numpy as np
import pytest


def drawn_scene(height: int = 720, width: int = 1280, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A textured grey background with a red disc and a blue rectangle; returns the image and true masks."""
    rng = np.random.default_rng(seed)
    image = rng.normal(120, 12, size=(height, width, 3)).clip(0, 255).astype(np.uint8)
    disc = np.zeros((height, width), np.uint8)
    cv2.circle(disc, (int(width * 0.3), int(height * 0.5)), int(height * 0.18), 1, -1)
    rect = np.zeros((height, width), np.uint8)
    rect[int(height * 0.25) : int(height * 0.7), int(width * 0.6) : int(width * 0.85)] = 1
    noise = rng.normal(0, 10, size=(height, width, 3))
    image[disc.astype(bool)] = (np.array([200, 40, 40]) + noise[disc.astype(bool)]).clip(0, 255).astype(np.uint8)
    image[rect.astype(bool)] = (np.array([40, 60, 200]) + noise[rect.astype(bool)]).clip(0, 255).astype(np.uint8)
    return image, {"disc": disc.astype(bool), "rect": rect.astype(bool)}


@pytest.fixture
def scene() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    return drawn_scene()
