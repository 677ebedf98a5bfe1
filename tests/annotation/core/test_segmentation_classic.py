"""The classical GrabCut backend on drawn images whose true masks are known."""
import numpy as np
import pytest

from annotation.core import rle
from annotation.core.segmentation import ClassicBackend, EmbeddingCache, PromptError, image_hash


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / (a | b).sum())


@pytest.mark.parametrize(
    "shape, prompt",
    [
        ("disc", {"box": [230, 230, 540, 490]}),
        ("disc", {"points": [[384, 360, 1]]}),
        ("rect", {"box": [760, 170, 1100, 510]}),
        ("rect", {"points": [[900, 300, 1]]}),
        ("rect", {"points": [[800, 200, 1], [1050, 480, 1], [384, 360, 0]]}),
    ],
)
def test_classic_backend_finds_drawn_shapes(scene, shape, prompt):
    image, truth = scene
    backend = ClassicBackend()
    proposals = backend.segment(backend.embed(image), multimask=True, **prompt)
    assert proposals, "at least one proposal"
    best = rle.decode(proposals[0].rle)
    assert best.shape == image.shape[:2]
    assert _iou(best, truth[shape]) > 0.9
    assert 0.0 <= proposals[0].score <= 1.0


def test_classic_backend_uses_the_previous_mask_with_a_negative_click(scene):
    # Given a previous mask that covers both shapes, a negative click on the disc takes it out.
    image, truth = scene
    backend = ClassicBackend()
    embedding = backend.embed(image)
    previous = rle.encode(truth["disc"] | truth["rect"])
    proposals = backend.segment(
        embedding, points=[[900, 300, 1], [384, 360, 0]], multimask=False, mask_input=previous
    )
    assert len(proposals) == 1
    assert _iou(rle.decode(proposals[0].rle), truth["rect"]) > 0.9


@pytest.mark.parametrize(
    "prompt, field",
    [
        ({"points": [[1281, 10, 1]]}, "points[0]"),
        ({"points": [[10, 10, 1], [-1, 10, 0]]}, "points[1]"),
        ({"points": [[10, 10, 2]]}, "points[0]"),
        ({"box": [0, 0, 1400, 100]}, "box"),
        ({"box": [10, 10, 10, 50]}, "box"),
        ({}, "points"),
        ({"points": [[10, 10, 0]]}, "points"),
        ({"points": [[10, 10, 1]], "mask_input": {"size": [5, 5], "counts": "05"}}, "mask_input"),
    ],
)
def test_prompts_that_do_not_fit_the_image_are_refused_with_the_field(scene, prompt, field):
    image, _ = scene
    backend = ClassicBackend()
    with pytest.raises(PromptError) as info:
        backend.segment(backend.embed(image), **prompt)
    assert info.value.field == field
    assert field in str(info.value)


def test_points_outside_the_image_message_names_the_image_size(scene):
    image, _ = scene
    backend = ClassicBackend()
    with pytest.raises(PromptError, match=r"outside the image \(width 1280, height 720\)"):
        backend.segment(backend.embed(image), points=[[5000, 3, 1]])


def test_embedding_cache_round_trips_and_keys_by_hash_and_model(tmp_path):
    cache = EmbeddingCache(tmp_path)
    from annotation.core.segmentation import Embedding

    features = np.random.default_rng(1).normal(size=(1, 256, 8, 8)).astype(np.float32)
    digest = image_hash(b"some image bytes")
    assert cache.get(digest, "sam-vit_b") is None
    path = cache.put(digest, Embedding("sam-vit_b", (30, 40), (768, 1024), features))
    assert path.exists()
    loaded = cache.get(digest, "sam-vit_b")
    assert loaded is not None and loaded.features.dtype == np.float16
    assert loaded.image_size == (30, 40) and loaded.input_size == (768, 1024)
    assert np.allclose(loaded.features.astype(np.float32), features, atol=1e-2)
    assert cache.get(digest, "sam-vit_l") is None
    path.write_bytes(b"truncated")
    assert cache.get(digest, "sam-vit_b") is None, "a damaged file is a miss, not a crash"


def test_a_mask_input_of_another_size_is_refused_before_it_is_decoded(scene):
    # {"size": [20000, 20000], "counts": "0"} is 20 bytes; decoded first, it cost 400 MB (and more) before the refusal
    import tracemalloc

    image, _ = scene
    backend = ClassicBackend()
    embedding = backend.embed(image)
    tracemalloc.start()
    try:
        with pytest.raises(PromptError, match="mask_input: mask is 20000x20000, image is"):
            backend.segment(embedding, points=[[10, 10, 1]], mask_input={"size": [20000, 20000], "counts": "0"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
