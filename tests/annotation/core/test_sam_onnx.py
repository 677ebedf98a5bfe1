"""The browser's ONNX decoder (annotation.core.sam_onnx) answers what the server's SAM decoder answers."""
from __future__ import annotations

import numpy as np
import onnxruntime
import pytest

from annotation.core import sam_onnx
from tests.annotation.core.conftest import drawn_scene


def _session(path):
    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def decoder(sam_random):
    """The float32 export: the same arithmetic as the server's decoder, to rounding."""
    backend, root = sam_random
    return backend, _session(backend.onnx_decoder(root, quantized=False))


@pytest.fixture(scope="module")
def quantized_decoder(sam_random):
    """The 8-bit export the editor loads by default (SAM_DECODER_QUANTIZED)."""
    backend, root = sam_random
    return _session(backend.onnx_decoder(root, quantized=True))


def _server_logits(backend, embedding, coords, labels, box, mask_prompt):
    predictor = backend._predictor
    import torch

    predictor.features = torch.from_numpy(embedding.astype(np.float32))
    predictor.original_size = (360, 640)
    predictor.input_size = (576, 1024)
    predictor.is_image_set = True
    try:
        return backend._decode(coords, labels, box, mask_prompt, True)
    finally:
        predictor.reset_image()


def _onnx_feeds(embedding, points, box, mask_prompt):
    scale = 1024 / 640
    coords = [[x * scale, y * scale] for x, y, _ in points]
    labels = [label for _, _, label in points]
    if box is not None:
        coords += [[box[0] * scale, box[1] * scale], [box[2] * scale, box[3] * scale]]
        labels += [2, 3]
    else:
        coords.append([0.0, 0.0])
        labels.append(-1)
    return {
        "image_embeddings": embedding.astype(np.float32),
        "point_coords": np.array([coords], np.float32),
        "point_labels": np.array([labels], np.float32),
        "mask_input": (mask_prompt if mask_prompt is not None else np.zeros((1, 256, 256), np.float32))[None],
        "has_mask_input": np.array([0 if mask_prompt is None else 1], np.float32),
    }


CASES = ["points", "box", "box+negative+mask"]


def _case(backend, case):
    """A seeded embedding and the prompt of one case: points, box, mask prompt."""
    rng = np.random.default_rng(3)
    embedding = rng.normal(0, 0.5, size=(1, 256, 64, 64)).astype(np.float16)
    points = [(192.0, 180.0, 1), (450.0, 100.0, 1)]
    box, mask_prompt = None, None
    if case != "points":
        box = (380.0, 80.0, 550.0, 260.0)
        points = [(460.0, 170.0, 1)] if case == "box" else [(460.0, 170.0, 1), (400.0, 100.0, 0)]
    if case == "box+negative+mask":
        _, truth = drawn_scene(height=360, width=640)
        mask_prompt = backend._mask_prompt(truth["rect"], (576, 1024))
    return embedding, points, box, mask_prompt


@pytest.mark.parametrize("case", CASES)
def test_onnx_decoder_matches_the_servers_sam_decoder(decoder, case):
    backend, session = decoder
    embedding, points, box, mask_prompt = _case(backend, case)
    coords = np.array([[x, y] for x, y, _ in points], np.float32)
    labels = np.array([lab for _, _, lab in points], np.int32)
    box_array = np.array(box, np.float32) if box is not None else None
    low_res, scores = _server_logits(backend, embedding, coords, labels, box_array, mask_prompt)
    onnx_scores, onnx_low = session.run(None, _onnx_feeds(embedding, points, box, mask_prompt))
    assert onnx_low.shape == (1, 4, 256, 256)
    # The server asks for the multimask answers: the ONNX graph's masks 1..3.
    np.testing.assert_allclose(onnx_scores[0, 1:], scores, atol=1e-3)
    np.testing.assert_allclose(onnx_low[0, 1:], low_res, atol=2e-3 * max(1.0, float(np.abs(low_res).max())))


@pytest.mark.parametrize("case", CASES)
def test_the_quantized_decoder_draws_the_float_decoders_masks(decoder, quantized_decoder, case):
    """8-bit products and the tanh GELU move a mask's edge by a pixel here and there: on random weights (whose logits
    hover near zero, the hardest case) each of the 4 masks keeps IoU >= 0.97 with the float answer, the scores within
    1e-3."""
    backend, session = decoder
    feeds = _onnx_feeds(*_case(backend, case))
    scores, low = session.run(None, feeds)
    q_scores, q_low = quantized_decoder.run(None, feeds)
    assert q_low.shape == low.shape
    for k in range(4):
        exact, approx = low[0, k] > 0, q_low[0, k] > 0
        assert exact.sum() > 100  # a real mask, not an empty one agreeing with an empty one
        iou = (exact & approx).sum() / (exact | approx).sum()
        assert iou >= 0.97, (k, iou)
    np.testing.assert_allclose(q_scores, scores, atol=1e-3)


def test_the_quantized_decoder_computes_in_integers_where_the_multiply_adds_are(sam_random):
    """The upscaling's two products with weights; the image-to-token attentions' logits and mixes (4 products whose
    operands both change per click); the token-to-image attentions' logits (3), each layer's image tokens quantized
    once for both its attentions' logits. The token-to-image mixes and the token side stay float. Its GELUs are
    onnxruntime's FastGelu (tanh form); the float export keeps SAM's error-function GELU. Both files are saved
    optimized (onnxruntime's fusions made): each integer product is one node there."""
    import onnx

    backend, root = sam_random
    float_path, int8_path = (backend.onnx_decoder(root, quantized=q) for q in (False, True))
    assert float_path != int8_path
    nodes = onnx.load(str(int8_path)).graph.node
    integer = {n.name: n for n in nodes
               if n.op_type in ("MatMulInteger", "MatMulIntegerToFloat", "DynamicQuantizeMatMul")}
    assert len([n for n in integer if n.startswith("/upscaling/")]) == 2, list(integer)
    products = sorted(n.split("/")[-3:-2][0] + " " + n.split("/")[-4] for n in integer if "/quantizable_" in n)
    assert len(integer) == 9 and products == sorted(
        ["quantizable_logits_product cross_attn_image_to_token", "quantizable_mix_product cross_attn_image_to_token",
         "quantizable_logits_product cross_attn_token_to_image"] * 2
        + ["quantizable_logits_product final_attn_token_to_image"]), products
    for layer in (0, 1):
        logits = [integer[f"/transformer/layers.{layer}/cross_attn_{way}/quantizable_logits_product/MatMul/integer"]
                  for way in ("token_to_image", "image_to_token")]
        assert logits[0].input[0] == logits[1].input[0]  # one quantization of the image tokens for both
        assert all(n.op_type == "MatMulIntegerToFloat" for n in logits)
    assert any(n.op_type in ("MatMul", "FusedMatMul") and "token_to_image/MatMul" in n.name for n in nodes)
    gelus = [n for n in nodes if n.op_type == "FastGelu"]
    assert len(gelus) == 2 and all(n.domain == "com.microsoft" for n in gelus), gelus
    float_ops = {node.op_type for node in onnx.load(str(float_path)).graph.node}
    # the rewrites: no ConvTranspose (upscaling as matrix products), no LayerNormalization kernel, no integers
    assert not float_ops & {"ConvTranspose", "LayerNormalization", "MatMulInteger", "DynamicQuantizeMatMul",
                            "FastGelu"}, float_ops
    assert "BiasGelu" in float_ops  # SAM's GELU, fused with its bias by onnxruntime
    # saved optimized: the browser creates its session with no fusion left to make
    assert {"FusedMatMul", "FusedGemm"} <= float_ops, float_ops


def test_the_decoder_file_is_named_by_the_weights_and_exported_once(sam_random, tmp_path):
    backend, _ = sam_random
    model = backend._predictor.model
    path = backend.onnx_decoder(tmp_path)
    assert path.name == f"decoder-{sam_onnx.decoder_fingerprint(model)}.onnx"
    stamp = path.stat().st_mtime_ns
    assert backend.onnx_decoder(tmp_path) == path
    assert path.stat().st_mtime_ns == stamp  # cached, not exported again
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind
    with pytest.raises(ValueError, match="lowercase hex"):
        sam_onnx.decoder_path(tmp_path, "sam-vit_b", "../x")


def test_an_export_removes_the_models_older_decoder_files(sam_random, tmp_path):
    """A new export format or checkpoint leaves the old file unused: the next export removes it; the model's other
    current file (float beside 8-bit), other models' folders, an export under way and links are left alone."""
    backend, _ = sam_random
    float_path = backend.onnx_decoder(tmp_path, quantized=False)
    folder = float_path.parent
    old = folder / "decoder-0123456789abcdef.onnx"
    old.write_bytes(b"an older export")
    under_way = folder / "tmpab12.onnx.tmp"
    under_way.write_bytes(b"another process exporting")
    link = folder / "decoder-fedcba9876543210.onnx"
    link.symlink_to(old)
    other_model = tmp_path / "sam-vit_h" / "decoder-0123456789abcdef.onnx"
    other_model.parent.mkdir()
    other_model.write_bytes(b"vit_h's")
    assert sam_onnx.stale_decoders(folder, {"0123456789abcdef"}) == [float_path]

    path = backend.onnx_decoder(tmp_path, quantized=True)
    assert sorted(p.name for p in folder.iterdir()) == sorted([path.name, float_path.name, under_way.name, link.name])
    assert other_model.read_bytes() == b"vit_h's"
    assert sam_onnx.stale_decoders(tmp_path / "missing", set()) == []
