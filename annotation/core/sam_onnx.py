"""SAM's prompt encoder + mask decoder as an ONNX file, for the editor to run in the browser (onnxruntime-web).

Rules: the graph is segment-anything's own `SamOnnxModel` (points, box corners as labels 2/3, padding point
label -1, `mask_input` + `has_mask_input`), minus its last step: it answers the 4 low-resolution logits
(1, 4, 256, 256) of the padded 1024 frame and their scores instead of upsampling all four to the image size;
the editor upsamples only the mask it shows, as `SamBackend._upscale` does on the server. Mask 0 is SAM's
single-mask answer, masks 1..3 its multimask answers (the same split `SamBackend.segment` makes). The traced
module (`sam_onnx_graph.low_res_decoder`) computes the same function in fewer operations; by default its heaviest
products are quantized to 8 bits (see `_quantize`) and the upscaling's GELUs take their tanh form (FastGelu).

One file per decoder: `decoder_fingerprint` hashes the export's format, its quantization and the prompt encoder's
and mask decoder's tensors, so a new checkpoint (or another random model) gets a new file and a cached file is
never stale. The export is written to a temporary name and renamed, so a reader never sees half a file. It is
saved after onnxruntime's graph optimizations (`_optimize`): the browser loads it with optimizations off.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

from annotation.core.sam_onnx_graph import QUANTIZABLE, low_res_decoder

ONNX_OPSET = 17
# Bumped whenever the exported graph changes: it is part of the fingerprint, so cached files of an older layout
# are never served.
EXPORT_FORMAT = 8
INPUT_NAMES = ("image_embeddings", "point_coords", "point_labels", "mask_input", "has_mask_input")
OUTPUT_NAMES = ("scores", "low_res_masks")


def decoder_fingerprint(model: Any, *, quantized: bool = True) -> str:
    """sha256 (first 16 hex digits) of the export's format, its quantization and the prompt encoder's and mask
    decoder's weights in state-dict order: a new checkpoint or a new graph layout never reuses a cached file."""
    digest = hashlib.sha256(f"{EXPORT_FORMAT}:{'int8' if quantized else 'float32'}".encode())
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


def stale_decoders(folder: str | os.PathLike[str], keep: set[str]) -> list[Path]:
    """The decoder files in a model's folder whose fingerprint is not in `keep`: exports of an older format or of
    another checkpoint of that model type, never served again (~19 MiB each for vit_b). Only plain files named as
    `decoder_path` names them; temporary files of an export under way are not among them."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("decoder-*.onnx")
                  if p.is_file() and not p.is_symlink() and p.name[len("decoder-"):-len(".onnx")] not in keep)


def export_decoder(model: Any, path: str | os.PathLike[str], *, quantized: bool = True) -> Path:
    """Write the ONNX decoder of this SAM model to `path` (atomically); returns the path.

    `quantized`: the browser's fast decoder. The products holding most of the multiply-adds run in 8-bit integers
    (see `_quantize`) and the upscaling's GELUs in tanh form (`low_res_decoder`): one WebAssembly thread in Node
    decodes a 2-point click in ~79 ms against ~101 ms for the float export; the masks keep IoU >= 0.97 with the
    float decoder's and the scores agree within 1e-3 on random weights (tests/annotation/core/test_sam_onnx.py).
    Without it, the export computes what the server's SAM computes, to rounding."""
    import torch

    wrapper = low_res_decoder(model, tanh_gelu=quantized)
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
    traced, integer = tmp + ".traced", tmp + ".int8"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # The TorchScript exporter: SamOnnxModel is written for it (the dynamo exporter is torch's default).
            torch.onnx.export(
                wrapper, inputs, traced, dynamo=False, export_params=True, opset_version=ONNX_OPSET,
                do_constant_folding=True, input_names=list(INPUT_NAMES), output_names=list(OUTPUT_NAMES),
                dynamic_axes={"point_coords": {1: "num_points"}, "point_labels": {1: "num_points"}},
            )
        if quantized:
            _quantize(traced, integer)
        _optimize(integer if quantized else traced, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        for stage in (traced, integer):
            Path(stage).unlink(missing_ok=True)
    return target


def _optimize(source: str, target: str) -> None:
    """onnxruntime's graph optimizations (constant folding, fusions) made once here and saved, so the browser creates
    its session with none to make: onnxruntime-web 1.30 in Node took ~440 ms to create a session of the plain file
    at level "all", ~190 ms for this one with optimizations off, on every page that opens the editor (the file is
    ~4 MiB larger: the folded positional encoding, fetched once per checkpoint). The extended level, not "all",
    whose layouts are made for this machine's CPU."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = target
    onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])


class _NoPreprocessingAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def _quantize(source: str, target: str) -> None:
    """8-bit products where the decoder spends its multiply-adds; the rest stays float.

    - The output upscaling's two products with weights (the /upscaling/ MatMuls): uint8 weights, activations
      quantized per run (onnxruntime's `quantize_dynamic`, as segment-anything's export script does to the whole
      SAM demo model).
    - The attentions' products whose operands both change per click (`sam_onnx_graph.QUANTIZABLE` nodes: the
      image-to-token logits and mix over the few prompt tokens, the token-to-image logits): both operands quantized
      per run to uint8 (DynamicQuantizeLinear), multiplied in integers (MatMulInteger), scaled back. The SAM demo's
      model quantizes the same activations (the image tokens entering k_proj and q_proj) per run. A layer's two
      logits products quantize the same image tokens: onnxruntime's optimizer (`_optimize`) merges the two
      quantizations into one."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(source).graph
    weights = {init.name for init in graph.initializer}
    hot = [node.name for node in graph.node
           if node.op_type == "MatMul" and node.name.startswith("/upscaling/") and node.input[1] in weights]
    if len(hot) != 2:
        raise RuntimeError(f"expected the upscaling's 2 MatMul nodes in the exported decoder, found {hot}")
    advice = _NoPreprocessingAdvice()  # onnxruntime logs it on the root logger for every model
    logging.getLogger().addFilter(advice)
    try:
        quantize_dynamic(source, target, weight_type=QuantType.QUInt8, nodes_to_quantize=hot)
    finally:
        logging.getLogger().removeFilter(advice)
    model = onnx.load(target)
    nodes: list[Any] = []
    for node in model.graph.node:
        if node.op_type == "MatMul" and f"/{QUANTIZABLE}" in node.name:
            nodes += _integer_product(node)
        else:
            nodes.append(node)
    if len(nodes) == len(model.graph.node):
        raise RuntimeError(f"no {QUANTIZABLE}* MatMul nodes in the exported decoder")
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, target)


def _integer_product(node: Any) -> list[Any]:
    """The nodes computing MatMul `node` (A @ B, both float and computed per run) in 8-bit integers."""
    from onnx import TensorProto, helper

    a, b = node.input
    out, name = node.output[0], node.name
    return [
        helper.make_node("DynamicQuantizeLinear", [a], [f"{name}/a", f"{name}/a_scale", f"{name}/a_zero"],
                         name=f"{name}/quantize_a"),
        helper.make_node("DynamicQuantizeLinear", [b], [f"{name}/b", f"{name}/b_scale", f"{name}/b_zero"],
                         name=f"{name}/quantize_b"),
        helper.make_node("MatMulInteger", [f"{name}/a", f"{name}/b", f"{name}/a_zero", f"{name}/b_zero"],
                         [f"{name}/int32"], name=f"{name}/integer"),
        helper.make_node("Cast", [f"{name}/int32"], [f"{name}/float"], to=TensorProto.FLOAT, name=f"{name}/cast"),
        helper.make_node("Mul", [f"{name}/a_scale", f"{name}/b_scale"], [f"{name}/scale"], name=f"{name}/scale"),
        helper.make_node("Mul", [f"{name}/float", f"{name}/scale"], [out], name=f"{name}/scaled"),
    ]
