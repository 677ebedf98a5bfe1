"""The graph `sam_onnx.export_decoder` traces: segment-anything's `SamOnnxModel` computing the same function in
fewer operations for onnxruntime-web (one WebAssembly thread, random vit_b, 2 prompt points: 136 ms for the plain
export, 84 ms for this one, both float32).

- The mask decoder's two-way transformer is SAM's own code with modules swapped: LayerNorms as the negated mean
  added, then an RMS norm that onnxruntime fuses into one kernel (`plain_layer_norm`: onnxruntime-web's
  LayerNormalization kernel is twice as slow as the plain ops, the RMS kernel faster than them), and the
  attentions between the few prompt tokens and the 4096 image tokens with their image-side projections folded
  onto the token side (`attend_tokens_to_image`, `attend_image_to_tokens`): ~2.3x fewer multiply-adds in the
  transformer for a click or two (the folded products grow with the tokens: from 16 tokens, the 5 output tokens and
  about 10 prompt points, they cost more than the projections they replace).
- The final token-to-image attention computed for the 5 output tokens only (`two_way_transformer`): the prompt
  points' last update was never read.
- The output upscaling (2x2/2 transposed convolutions, LayerNorm2d, GELU) as matrix products on the tokens
  (`upscaled_masks`), the LayerNorm's centring folded into the first product's weights (`centred_upscaling`), the
  low-resolution masks put in pixel order once at the end.
- No upsampling to the image size: the browser upsamples only the mask it shows.

Each rewrite is the same arithmetic reordered; tests/annotation/core/test_sam_onnx.py compares the exported graph
with the server's SAM decoder (logits within 2e-3 of their scale). torch is imported only when a decoder is built
(the site's processes do not load it unless SAM is configured).
"""
from __future__ import annotations

import math
from copy import deepcopy
from functools import partial
from typing import Any


def rms_norm(centred: Any, weight: Any, eps: float) -> Any:
    """The second half of a LayerNorm over the last axis, on values already centred: divide by the root mean square,
    scale. onnxruntime's optimizer fuses it into its SimplifiedLayerNormalization kernel (one pass where the plain ops
    make four)."""
    return centred / centred.pow(2).mean(-1, keepdim=True).add(eps).sqrt() * weight


def plain_layer_norm(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    """LayerNorm over the last axis as the mean added negated, then `rms_norm`; `bias` None leaves the shift to the
    caller (a GELU taking it as its bias). The mean is added negated, not subtracted: with a Sub, onnxruntime's
    LayerNorm fusion takes the whole pattern into its LayerNormalization kernel, twice as slow in onnxruntime-web as
    the plain ops."""
    scaled = rms_norm(x + x.mean(-1, keepdim=True).neg(), weight, eps)
    return scaled if bias is None else scaled + bias


def exact_gelu(x: Any, bias: Any) -> Any:
    """GELU(x + bias) with the error function, as SAM computes it."""
    from torch.nn.functional import gelu

    return gelu(x + bias)


def _matmul(a: Any, b: Any) -> Any:
    return a @ b


def attend_tokens_to_image(attn: Any, q: Any, k: Any, v: Any, *, logits_product: Any = _matmul) -> Any:
    """SAM's Attention `attn` with n prompt tokens as queries and N = 4096 image tokens as keys and values, the key
    and value projections folded into the queries' side: q·(W_k x + b_k) = (W_kᵀ q)·x + q·b_k, where the last term
    is the same for every key and softmax drops it; and Σ a (W_v x + b_v) = W_v (Σ a x) + b_v since a row of weights
    sums to 1. Two products of (8 heads x n) x 256 x N instead of two of N x 256 x 128. The logits are computed
    image side first (N x 256 by 256 x (8 heads x n)): the image tokens are the left operand, as in the image-to-token
    attention's logits of the same layer, which quantizes the same tensor."""
    heads = attn.num_heads
    n, dim, width = q.shape[1], attn.embedding_dim, attn.internal_dim // heads
    queries = attn.q_proj(q).reshape(1, n, heads, width).transpose(1, 2)  # (1, heads, n, width)
    folded = queries @ (attn.k_proj.weight.reshape(heads, width, dim) / math.sqrt(width))  # (1, heads, n, dim)
    logits = logits_product(k, folded.reshape(1, heads * n, dim).transpose(1, 2)).transpose(1, 2)  # (1, heads*n, N)
    mixed = (logits.softmax(dim=-1) @ v).reshape(1, heads, n, dim)
    values = mixed @ attn.v_proj.weight.reshape(heads, width, dim).transpose(1, 2)
    values = values + attn.v_proj.bias.reshape(heads, 1, width)
    return attn.out_proj(values.transpose(1, 2).reshape(1, n, heads * width))


def attend_image_to_tokens(attn: Any, q: Any, k: Any, v: Any, *, logits_product: Any = _matmul,
                           mix_product: Any = _matmul) -> Any:
    """SAM's Attention `attn` with the N image tokens as queries and the n prompt tokens as keys and values: the
    query projection folded into the keys (x·W_qᵀ k_h + b_q·k_h) and the output projection into the values
    (Σ_h a_h (v_h W_o,hᵀ)), so the image side meets two products of N x 256 x (8 heads x n) instead of two of
    N x 256 x 128."""
    heads = attn.num_heads
    count, n, dim, width = q.shape[1], k.shape[1], attn.embedding_dim, attn.internal_dim // heads
    keys = attn.k_proj(k).reshape(1, n, heads, width).transpose(1, 2)  # (1, heads, n, width)
    values = attn.v_proj(v).reshape(1, n, heads, width).transpose(1, 2)
    folded = attn.q_proj.weight.reshape(heads, width, dim).transpose(1, 2) @ keys.transpose(2, 3)  # (1, heads, dim, n)
    offset = attn.q_proj.bias.reshape(heads, 1, width) @ keys.transpose(2, 3)  # (1, heads, 1, n)
    logits = logits_product(q, folded.permute(0, 2, 1, 3).reshape(1, dim, heads * n))
    logits = (logits.reshape(1, count, heads, n) + offset.reshape(1, 1, heads, n)) / math.sqrt(width)
    weights = logits.softmax(dim=-1).reshape(1, count, heads * n)
    projected = values @ attn.out_proj.weight.reshape(dim, heads, width).permute(1, 2, 0)  # (1, heads, n, dim)
    return mix_product(weights, projected.reshape(1, heads * n, dim)) + attn.out_proj.bias


def two_way_transformer(transformer: Any, image_embedding: Any, image_pe: Any, tokens: Any, answered: int) -> Any:
    """SAM's `TwoWayTransformer.forward` with its final token-to-image attention computed for the first `answered`
    tokens only: the IoU and mask tokens the decoder reads. The prompt points' tokens go through every layer (the
    image side and the answers depend on them), but their last update was never read (for two points, 40 rows of
    that attention's products instead of 64). Returns (the answered tokens, the image tokens)."""
    keys = image_embedding.flatten(2).permute(0, 2, 1)  # (1, C, h, w) -> (1, h*w, C)
    image_pe = image_pe.flatten(2).permute(0, 2, 1)
    queries = tokens
    for layer in transformer.layers:
        queries, keys = layer(queries=queries, keys=keys, query_pe=tokens, key_pe=image_pe)
    queries, query_pe = queries[:, :answered], tokens[:, :answered]
    attn_out = transformer.final_attn_token_to_image(q=queries + query_pe, k=keys + image_pe, v=keys)
    return transformer.norm_final_attn(queries + attn_out), keys


def upscaled_masks(upscaling: Any, src: Any, hyper_in: Any, side: int, *, gelu: Any = exact_gelu) -> Any:
    """MaskDecoder's `output_upscaling` (ConvTranspose 2x2/2, LayerNorm2d, GELU, ConvTranspose 2x2/2, GELU) and
    the hypernetwork product, on the transformer's tokens (1, side*side, C) without going to NCHW.

    A 2x2 transposed convolution of stride 2 maps each input pixel to its own 2x2 output block, so it is one matrix
    product per pixel; LayerNorm2d normalises each pixel over its channels and GELU is per element. Every step up to
    the masks stays per pixel, in the tokens' order, and one transpose at the end puts pixel (4i+2a+c, 4j+2b+d) in
    place. Its two products with weights are the ones `sam_onnx` quantizes. `gelu(x, bias)`: GELU(x + bias).
    `upscaling`: from `centred_upscaling`."""
    first, norm, _, second, _ = upscaling
    w1 = first.weight.permute(0, 2, 3, 1).reshape(first.in_channels, 4 * first.out_channels)  # columns (a, b, o)
    y = (src @ w1).reshape(1, side * side, 4, first.out_channels) + first.bias
    y = gelu(rms_norm(y, norm.weight, norm.eps), norm.bias)  # y centred: `centred_upscaling`
    w2 = second.weight.permute(0, 2, 3, 1).reshape(second.in_channels, 4 * second.out_channels)  # (c, d, o)
    z = gelu((y @ w2).reshape(1, side * side, 4, 4, second.out_channels), second.bias)
    masks = z @ hyper_in[0].transpose(0, 1)  # (1, pixels, (a, b), (c, d), masks)
    count = hyper_in.shape[1]
    masks = masks.reshape(1, side, side, 2, 2, 2, 2, count).permute(0, 7, 1, 3, 5, 2, 4, 6)
    return masks.reshape(1, count, 4 * side, 4 * side)


def centred_upscaling(upscaling: Any) -> Any:
    """A copy of MaskDecoder's `output_upscaling` with LayerNorm2d's centring folded into the first transposed
    convolution: the weights and bias of each output pixel's channels less their mean, so its channels come out
    with mean zero and the norm is `rms_norm` alone (the mean of a sum of products is the sum of the means)."""
    import torch

    copy = deepcopy(upscaling)
    first = copy[0]
    with torch.no_grad():
        first.weight -= first.weight.mean(1, keepdim=True)  # (in, out, 2, 2): over the out channels
        first.bias -= first.bias.mean()
    return copy


SWAPS = {  # SAM's modules in the two-way transformer -> the function computing each, its quantizable products
    "cross_attn_token_to_image": (attend_tokens_to_image, ("logits_product",)),
    "final_attn_token_to_image": (attend_tokens_to_image, ("logits_product",)),
    "cross_attn_image_to_token": (attend_image_to_tokens, ("logits_product", "mix_product")),
}
# The ONNX nodes of those products are named .../<attention>/quantizable_<product>/MatMul. Both their operands
# change with every click (no weights); `sam_onnx` may quantize them per run. In a layer, both attentions' logits
# take the image tokens (with their positional encoding) as left operand: quantized once for the two. Not among them:
# the token-to-image mix (softmax weights over 4096 keys, most of them tiny, would round to zero).
QUANTIZABLE = "quantizable_"


def low_res_decoder(sam: Any, *, tanh_gelu: bool = False) -> Any:
    """segment-anything's `SamOnnxModel` for `sam`, answering (scores (1, 4), low-res logits (1, 4, 256, 256))
    through the rewrites above, ready for `torch.onnx.export`. It shares the model's weights except the
    transformer's and the upscaling's: those are swapped or changed in copies, so the server's own model never is.

    `tanh_gelu`: the upscaling's two GELUs in their tanh form (within 5e-4 of the error-function form), exported as
    onnxruntime's FastGelu: in onnxruntime-web the error-function GELU over the 2M values of the last one costs
    more than the product before it (one WebAssembly thread: 15.9 ms against 6.7 ms for FastGelu)."""
    import torch
    from segment_anything.utils.onnx import SamOnnxModel

    class FastGelu(torch.autograd.Function):
        """GELU(x + bias), tanh form; one com.microsoft FastGelu node in the export."""

        @staticmethod
        def forward(ctx, x, bias):
            return torch.nn.functional.gelu(x + bias, approximate="tanh")

        @staticmethod
        def symbolic(graph, x, bias):
            out = graph.op("com.microsoft::FastGelu", x, bias)
            out.setType(x.type())  # elementwise: the input's shape and type
            return out

    class Product(torch.nn.Module):
        """a @ b in a module of its own, so its ONNX node carries the module's name."""

        def forward(self, a, b):
            return a @ b

    class Swapped(torch.nn.Module):
        """One of SAM's modules, its weights kept, computed by one of this file's functions."""

        def __init__(self, module: torch.nn.Module, function: Any, products: tuple[str, ...] = ()) -> None:
            super().__init__()
            self.inner, self.function = module, function
            self.products = products
            for name in products:
                self.add_module(QUANTIZABLE + name, Product())

        def forward(self, *args, **kwargs):  # SAM's blocks call attention with q=, k=, v=
            named = {name: getattr(self, QUANTIZABLE + name) for name in self.products}
            return self.function(self.inner, *args, **kwargs, **named)

    def layer_norm(norm, x):
        return plain_layer_norm(x, norm.weight, norm.bias, norm.eps)

    class LowResDecoder(SamOnnxModel):
        def __init__(self) -> None:
            super().__init__(sam, return_single_mask=False)
            # SAM's forward code, modules swapped (a module of its own: its ONNX nodes are named /transformer/...)
            self.transformer = Swapped(deepcopy(sam.mask_decoder.transformer), two_way_transformer)
            for parent in list(self.transformer.modules()):
                for name, child in parent.named_children():
                    if isinstance(child, torch.nn.LayerNorm):
                        setattr(parent, name, Swapped(child, layer_norm))
                    elif name in SWAPS:
                        setattr(parent, name, Swapped(child, *SWAPS[name]))
            # a module of its own, so its ONNX nodes are named /upscaling/... (the ones `sam_onnx` quantizes)
            gelu = FastGelu.apply if tanh_gelu else exact_gelu
            upscaling = centred_upscaling(sam.mask_decoder.output_upscaling)
            self.upscaling = Swapped(upscaling, partial(upscaled_masks, gelu=gelu))

        @torch.no_grad()
        def forward(self, image_embeddings, point_coords, point_labels, mask_input, has_mask_input):
            decoder = self.model.mask_decoder
            sparse = self._embed_points(point_coords, point_labels)
            dense = self._embed_masks(mask_input, has_mask_input)
            # MaskDecoder.predict_masks for one image
            output_tokens = torch.cat([decoder.iou_token.weight, decoder.mask_tokens.weight], dim=0)
            tokens = torch.cat((output_tokens.unsqueeze(0), sparse), dim=1)
            pe = self.model.prompt_encoder.get_dense_pe()
            hs, src = self.transformer(image_embeddings + dense, pe, tokens, len(output_tokens))
            mask_tokens = hs[:, 1:1 + decoder.num_mask_tokens, :]
            hyper_in = torch.stack(
                [mlp(mask_tokens[:, i, :]) for i, mlp in enumerate(decoder.output_hypernetworks_mlps)], dim=1
            )
            masks = self.upscaling(src, hyper_in, image_embeddings.shape[-1])
            return decoder.iou_prediction_head(hs[:, 0, :]), masks

    return LowResDecoder().eval()
