"""The graph `sam_onnx.export_decoder` traces: segment-anything's `SamOnnxModel` computing the same function in
fewer operations for onnxruntime-web (measured one WebAssembly thread, random vit_b, 2 prompt points: 136 ms for
the plain export, 84 ms for this one, float32 throughout).

- The mask decoder's two-way transformer is SAM's own code with modules swapped: LayerNorms as plain ops
  (mean, subtract, mean of squares, rsqrt: onnxruntime-web's LayerNormalization kernel is twice as slow), and the
  attentions between the few prompt tokens and the 4096 image tokens with their image-side projections folded
  onto the token side (`TokensToImage`, `ImageToTokens`): ~2.3x fewer multiply-adds in the transformer.
- The output upscaling (2x2/2 transposed convolutions, LayerNorm2d, GELU) as matrix products on the tokens
  (`UpscaledMasks`), the low-resolution masks put in pixel order once at the end.
- No upsampling to the image size: the browser upsamples only the mask it shows.

Each rewrite is the same arithmetic reordered; tests/annotation/core/test_sam_onnx.py compares the exported graph
with the server's SAM decoder (logits within 2e-3 of their scale).
"""
from __future__ import annotations

import math
from copy import deepcopy
from typing import Any

import torch
import torch.nn.functional as F
from segment_anything.modeling.transformer import Attention
from segment_anything.utils.onnx import SamOnnxModel
from torch import nn


def plain_layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """LayerNorm over the last axis as mean, subtract, mean of squares, rsqrt (exported as those plain ops)."""
    centred = x - x.mean(-1, keepdim=True)
    return centred * (centred * centred).mean(-1, keepdim=True).add(eps).rsqrt() * weight + bias


class PlainLayerNorm(nn.Module):
    def __init__(self, norm: nn.LayerNorm) -> None:
        super().__init__()
        self.weight, self.bias, self.eps = norm.weight, norm.bias, norm.eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # noqa: D102
        return plain_layer_norm(x, self.weight, self.bias, self.eps)


class TokensToImage(nn.Module):
    """SAM's Attention with n prompt tokens as queries and N = 4096 image tokens as keys and values, the key and value
    projections folded into the queries' side: q·(W_k x + b_k) = (W_kᵀ q)·x + q·b_k, where the last term is the same
    for every key and softmax drops it; and Σ a (W_v x + b_v) = W_v (Σ a x) + b_v since a row of weights sums to 1.
    Two products of (8 heads x n) x 256 x N instead of two of N x 256 x 128."""

    def __init__(self, attn: Attention) -> None:
        super().__init__()
        self.attn = attn

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # noqa: D102
        a, heads = self.attn, self.attn.num_heads
        n, dim, width = q.shape[1], a.embedding_dim, a.internal_dim // heads
        queries = a.q_proj(q).reshape(1, n, heads, width).transpose(1, 2)  # (1, heads, n, width)
        folded = queries @ a.k_proj.weight.reshape(heads, width, dim)  # (1, heads, n, dim)
        logits = folded.reshape(1, heads * n, dim) @ k.transpose(1, 2) / math.sqrt(width)
        weights = torch.softmax(logits, dim=-1)  # (1, heads * n, N)
        mixed = (weights @ v).reshape(1, heads, n, dim)
        values = mixed @ a.v_proj.weight.reshape(heads, width, dim).transpose(1, 2)
        values = values + a.v_proj.bias.reshape(heads, 1, width)
        return a.out_proj(values.transpose(1, 2).reshape(1, n, heads * width))


class ImageToTokens(nn.Module):
    """SAM's Attention with the N image tokens as queries and the n prompt tokens as keys and values: the query
    projection folded into the keys (x·W_qᵀ k_h + b_q·k_h) and the output projection into the values
    (Σ_h a_h (v_h W_o,hᵀ)), so the image side meets two products of N x 256 x (8 heads x n) instead of two of
    N x 256 x 128."""

    def __init__(self, attn: Attention) -> None:
        super().__init__()
        self.attn = attn

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # noqa: D102
        a, heads = self.attn, self.attn.num_heads
        count, n, dim, width = q.shape[1], k.shape[1], a.embedding_dim, a.internal_dim // heads
        keys = a.k_proj(k).reshape(1, n, heads, width).transpose(1, 2)  # (1, heads, n, width)
        values = a.v_proj(v).reshape(1, n, heads, width).transpose(1, 2)
        folded = a.q_proj.weight.reshape(heads, width, dim).transpose(1, 2) @ keys.transpose(2, 3)  # (1, heads, dim, n)
        offset = a.q_proj.bias.reshape(heads, 1, width) @ keys.transpose(2, 3)  # (1, heads, 1, n)
        logits = q @ folded.permute(0, 2, 1, 3).reshape(1, dim, heads * n)
        logits = (logits.reshape(1, count, heads, n) + offset.reshape(1, 1, heads, n)) / math.sqrt(width)
        weights = torch.softmax(logits, dim=-1).reshape(1, count, heads * n)
        projected = values @ a.out_proj.weight.reshape(dim, heads, width).permute(1, 2, 0)  # (1, heads, n, dim)
        return weights @ projected.reshape(1, heads * n, dim) + a.out_proj.bias


def transformer_for_the_browser(transformer: nn.Module) -> nn.Module:
    """A copy of SAM's TwoWayTransformer with the modules above swapped in (its forward code unchanged)."""
    copy = deepcopy(transformer)
    for parent in list(copy.modules()):
        for name, child in parent.named_children():
            if isinstance(child, nn.LayerNorm):
                setattr(parent, name, PlainLayerNorm(child))
            elif isinstance(child, Attention) and name in ("cross_attn_token_to_image", "final_attn_token_to_image"):
                setattr(parent, name, TokensToImage(child))
            elif isinstance(child, Attention) and name == "cross_attn_image_to_token":
                setattr(parent, name, ImageToTokens(child))
    return copy


class UpscaledMasks(nn.Module):
    """MaskDecoder's `output_upscaling` (ConvTranspose 2x2/2, LayerNorm2d, GELU, ConvTranspose 2x2/2, GELU) and
    the hypernetwork product, on the transformer's tokens (1, side*side, C) without going to NCHW.

    A 2x2 transposed convolution of stride 2 maps each input pixel to its own 2x2 output block, so it is one matrix
    product per pixel; LayerNorm2d normalises each pixel over its channels and GELU is per element. Every step up to
    the masks stays per pixel, in the tokens' order, and one transpose at the end puts pixel (4i+2a+c, 4j+2b+d) in
    place. Its two products hold most of the decoder's multiply-adds that do not depend on the prompt's size: the
    ones `sam_onnx` quantizes (their ONNX nodes are named /upscaling/...)."""

    def __init__(self, upscaling: nn.Sequential) -> None:
        super().__init__()
        self.first, self.norm, _, self.second, _ = upscaling

    def forward(self, src: torch.Tensor, hyper_in: torch.Tensor, side: int) -> torch.Tensor:  # noqa: D102
        first, second = self.first, self.second
        w1 = first.weight.permute(0, 2, 3, 1).reshape(first.in_channels, 4 * first.out_channels)  # columns (a, b, o)
        y = (src @ w1).reshape(1, side * side, 4, first.out_channels) + first.bias
        y = plain_layer_norm(y, self.norm.weight, self.norm.bias, self.norm.eps)
        w2 = second.weight.permute(0, 2, 3, 1).reshape(second.in_channels, 4 * second.out_channels)  # (c, d, o)
        z = F.gelu((F.gelu(y) @ w2).reshape(1, side * side, 4, 4, second.out_channels) + second.bias)
        masks = z @ hyper_in[0].transpose(0, 1)  # (1, pixels, (a, b), (c, d), masks)
        count = hyper_in.shape[1]
        masks = masks.reshape(1, side, side, 2, 2, 2, 2, count).permute(0, 7, 1, 3, 5, 2, 4, 6)
        return masks.reshape(1, count, 4 * side, 4 * side)


class LowResDecoder(SamOnnxModel):
    """SamOnnxModel answering (scores, the 4 low-resolution logits) through the rewrites above."""

    def __init__(self, sam: Any) -> None:
        super().__init__(sam, return_single_mask=False)
        self.transformer = transformer_for_the_browser(sam.mask_decoder.transformer)
        self.upscaling = UpscaledMasks(sam.mask_decoder.output_upscaling)

    @torch.no_grad()
    def forward(self, image_embeddings, point_coords, point_labels, mask_input, has_mask_input):  # noqa: D102
        decoder = self.model.mask_decoder
        sparse = self._embed_points(point_coords, point_labels)
        dense = self._embed_masks(mask_input, has_mask_input)
        # MaskDecoder.predict_masks for one image
        output_tokens = torch.cat([decoder.iou_token.weight, decoder.mask_tokens.weight], dim=0)
        tokens = torch.cat((output_tokens.unsqueeze(0), sparse), dim=1)
        hs, src = self.transformer(image_embeddings + dense, self.model.prompt_encoder.get_dense_pe(), tokens)
        mask_tokens = hs[:, 1:1 + decoder.num_mask_tokens, :]
        hyper_in = torch.stack(
            [mlp(mask_tokens[:, i, :]) for i, mlp in enumerate(decoder.output_hypernetworks_mlps)], dim=1
        )
        masks = self.upscaling(src, hyper_in, image_embeddings.shape[-1])
        return decoder.iou_prediction_head(hs[:, 0, :]), masks
