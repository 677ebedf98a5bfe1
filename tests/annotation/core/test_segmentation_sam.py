"""The real segment-anything code path, with a randomly initialised vit_b (no weights are downloaded)."""
import numpy as np
import pytest

from annotation.core import rle
from annotation.core.segmentation import BackendConfigError, EmbeddingCache, PromptError, SamBackend


def test_checkpoint_that_does_not_exist_is_a_clear_error(tmp_path):
    with pytest.raises(BackendConfigError, match="does not exist"):
        SamBackend.from_checkpoint(tmp_path / "missing.pth", model_type="vit_b")


def test_checkpoint_that_does_not_load_is_a_clear_error(tmp_path):
    broken = tmp_path / "sam_vit_b.pth"
    broken.write_bytes(b"this is not a torch checkpoint")
    with pytest.raises(BackendConfigError, match=r"sam_vit_b.pth does not load as vit_b"):
        SamBackend.from_checkpoint(broken, model_type="vit_b")


def test_checkpoint_of_the_wrong_model_is_a_clear_error(tmp_path):
    import torch

    wrong = tmp_path / "other.pth"
    torch.save({"not_a_sam_key": torch.zeros(1)}, wrong)
    with pytest.raises(BackendConfigError, match="does not load as vit_b: RuntimeError"):
        SamBackend.from_checkpoint(wrong, model_type="vit_b")


def test_unknown_model_type_is_refused(tmp_path):
    with pytest.raises(BackendConfigError, match="unknown SAM model type 'vit_x'"):
        SamBackend.from_checkpoint(tmp_path / "x.pth", model_type="vit_x")


@pytest.mark.slow
def test_sam_answers_clicks_from_a_cached_embedding(tmp_path):
    import torch
    from segment_anything import sam_model_registry

    torch.manual_seed(0)
    backend = SamBackend(sam_model_registry["vit_b"](checkpoint=None), model_type="vit_b")
    image = np.random.default_rng(0).integers(0, 255, size=(240, 320, 3), dtype=np.uint8)

    embedding = backend.embed(image)  # the slow step: the image encoder
    assert embedding.features.dtype == np.float16
    assert embedding.features.shape == (1, 256, 64, 64)
    assert embedding.image_size == (240, 320) and embedding.input_size == (768, 1024)

    cache = EmbeddingCache(tmp_path)
    cache.put("ab" * 32, embedding)
    cached = cache.get("ab" * 32, "sam-vit_b")
    assert cached is not None

    # Count image-encoder calls: answering prompts must never run it again.
    calls = []
    hook = backend._predictor.model.image_encoder.register_forward_hook(lambda *a: calls.append(1))
    try:
        multi = backend.segment(cached, points=[[100, 120, 1]], multimask=True)
        single = backend.segment(cached, points=[[100, 120, 1], [10, 10, 0]], box=[50, 50, 200, 200], multimask=False)
        refined = backend.segment(cached, points=[[100, 120, 1]], multimask=True, mask_input=multi[0].rle)
    finally:
        hook.remove()
    assert calls == []
    assert len(multi) == 3 and len(single) == 1 and len(refined) == 3
    scores = [p.score for p in multi]
    assert scores == sorted(scores, reverse=True)
    for proposal in multi + single + refined:
        assert rle.size_of(proposal.rle) == (240, 320)
    with pytest.raises(PromptError, match="points"):
        backend.segment(cached, points=[[321, 5, 1]])

    # The one-step upscaling agrees with SamPredictor.predict's own output (to the boundary pixels).
    predictor = backend._predictor
    predictor.features = torch.from_numpy(cached.features.astype(np.float32))
    predictor.original_size, predictor.input_size, predictor.is_image_set = (240, 320), (768, 1024), True
    masks, scores, _ = predictor.predict(point_coords=np.array([[100.0, 120.0]]), point_labels=np.array([1]),
                                         multimask_output=True)
    for proposal, index in zip(multi, np.argsort(-scores)):
        assert proposal.score == pytest.approx(float(scores[index]), abs=1e-3)  # float16 features
        assert (rle.decode(proposal.rle) != masks[index]).mean() < 0.02
