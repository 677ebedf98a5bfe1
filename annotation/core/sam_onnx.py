"""SAM's prompt encoder + mask decoder as an ONNX file, for the editor to run in the browser (onnxruntime-web).

Rules: the graph is segment-anything's own `SamOnnxModel` (points, box corners as labels 2/3, padding point
label -1, `mask_input` + `has_mask_input`), minus its last step: it answers the 4 low-resolution logits
(1, 4, 256, 256) of the padded 1024 frame and their scores instead of upsampling all four to the image size;
the editor upsamples only the mask it shows, as `SamBackend._upscale` does on the server. Mask 0 is SAM's
single-mask answer, masks 1..3 its multimask answers (the same split `SamBackend.segment` makes).

One file per decoder weights: `decoder_fingerprint` hashes the prompt encoder's and mask decoder's tensors, so a
new checkpoint (or another random model) gets a new file and a cached file is never stale. The export is
written to a temporary name and renamed, so a reader never sees half a file.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

ONNX_OPSET = 17
INPUT_NAMES = ("image_embeddings", "point_coords", "point_labels", "mask_input", "has_mask_input")
OUTPUT_NAMES = ("scores", "low_res_masks")


def decoder_fingerprint(model: Any) -> str:
    """sha256 (first 16 hex digits) of the prompt encoder's and mask decoder's weights, in state-dict order."""
    digest = hashlib.sha256()
    for part in (model.prompt_encoder, model.mask_decoder):
        for name, tensor in part.state_dict().items():
            digest.update(name.encode())
            digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def decoder_path(root: str | os.PathLike[str], model_key: str, fingerprint: str) -> Path:
    safe_model = "".join(c if c.isalnum() or c in "-_" else "_" for c in model_key)
    if not fingerprint or not all(c in "0123456789abcdef" for c in fingerprint):
        raise ValueError(f"decoder fingerprint must be lowercase hex, got {fingerprint!r}")
    return Path(root) / safe_model / f"decoder-{fingerprint}.onnx"


def _low_res_wrapper(model: Any) -> Any:
    import torch
    from segment_anything.utils.onnx import SamOnnxModel

    class SamLowResOnnxModel(SamOnnxModel):
        """SamOnnxModel without the upsampling to the image size (done in the browser for one mask)."""

        @torch.no_grad()
        def forward(self, image_embeddings, point_coords, point_labels, mask_input, has_mask_input):  # noqa: D102
            sparse = self._embed_points(point_coords, point_labels)
            dense = self._embed_masks(mask_input, has_mask_input)
            masks, scores = self.model.mask_decoder.predict_masks(
                image_embeddings=image_embeddings,
                image_pe=self.model.prompt_encoder.get_dense_pe(),
                sparse_prompt_embeddings=sparse,
                dense_prompt_embeddings=dense,
            )
            return scores, masks

    return SamLowResOnnxModel(model, return_single_mask=False).eval()


def export_decoder(model: Any, path: str | os.PathLike[str]) -> Path:
    """Write the ONNX decoder of this SAM model to `path` (atomically); returns the path."""
    import torch

    wrapper = _low_res_wrapper(model)
    embed_dim = model.prompt_encoder.embed_dim
    side = model.prompt_encoder.image_embedding_size
    mask_side = 4 * side[0]
    inputs = (
        torch.randn(1, embed_dim, *side, dtype=torch.float),
        torch.randint(0, 1024, (1, 5, 2), dtype=torch.float),
        torch.randint(0, 4, (1, 5), dtype=torch.float),
        torch.randn(1, 1, mask_side, mask_side, dtype=torch.float),
        torch.tensor([1], dtype=torch.float),
    )
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # The TorchScript exporter: SamOnnxModel is written for it (the dynamo exporter is torch's default).
            torch.onnx.export(
                wrapper, inputs, tmp, dynamo=False, export_params=True, opset_version=ONNX_OPSET,
                do_constant_folding=True, input_names=list(INPUT_NAMES), output_names=list(OUTPUT_NAMES),
                dynamic_axes={"point_coords": {1: "num_points"}, "point_labels": {1: "num_points"}},
            )
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def ensure_decoder(model: Any, root: str | os.PathLike[str], model_key: str) -> Path:
    """The cached ONNX decoder of this model under `root`, exported on first use."""
    path = decoder_path(root, model_key, decoder_fingerprint(model))
    if not path.exists():
        export_decoder(model, path)
    return path
