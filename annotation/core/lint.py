"""Label linter: checks an item's texts, labels and masks for mistakes before save and review.

Rules: plain data in (`LintInput`), a list of `Finding` out, in a stable order; never raises on bad labels
(a bad label is a finding). Thresholds come in through `LintOptions`. Every finding blocks submission for
review unless the annotator overrides it with a reason (decided by the caller, not here).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
from pycocotools import mask as mask_utils

from annotation.core import edits
from annotation.core import rle as rle_utils
from annotation.core.epic import Leaf


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str
    field: str = ""  # label field or masklet the finding is about
    instance: int | None = None  # index within the masklet


@dataclass(frozen=True)
class LintOptions:
    # Fragments and holes are measured relative to the image: a fixed pixel count means different things
    # on a 320x240 and a 4K image. The floor keeps tiny images sensible.
    fragment_fraction: float = 1e-4
    fragment_min_px: int = 16
    hole_fraction: float = 2e-4
    hole_min_px: int = 25
    overlap_min_px: int = 1
    # Some projects require the placement mask to be empty when placement is infeasible.
    forbid_mask_when_infeasible: bool = False


@dataclass(frozen=True)
class LintInput:
    leaf: Leaf
    image_sizes: tuple[tuple[int, int], ...]  # (H, W) per image
    texts: Mapping[str, str] = field(default_factory=dict)
    count: int | None = None
    precise_count: bool = False
    count_in_description: bool = False
    placement_feasible: bool | None = None
    instances: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)  # masklet -> RLEs


_NUMBER_WORDS = {
    "one": 1, "single": 1, "two": 2, "both": 2, "pair": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "zero": 0, "none": 0, "dozen": 12,
}
# Quantifiers that promise more than one target without saying how many.
_PLURAL_QUANTIFIERS = ("several", "multiple", "many", "few", "various", "numerous")
_WORD = re.compile(r"[a-z]+|\d+")


@dataclass(frozen=True)
class TextCount:
    word: str
    value: int | None  # None for a plural quantifier (meaning "at least 2")


def text_counts(text: str) -> list[TextCount]:
    """Numbers and count quantifiers mentioned in a text, in order.

    Digits count only as whole words, so the "2" that separates descriptions in CR/FP texts
    ("the plate2the cup") is not read as a number.
    """
    found: list[TextCount] = []
    for match in _WORD.finditer(text.lower()):
        token = match.group(0)
        start, end = match.span()
        if token.isdigit():
            before = text[start - 1] if start > 0 else " "
            after = text[end] if end < len(text) else " "
            if before.isalnum() or after.isalnum():
                continue
            found.append(TextCount(token, int(token)))
        elif token in _NUMBER_WORDS:
            found.append(TextCount(token, _NUMBER_WORDS[token]))
        elif token in _PLURAL_QUANTIFIERS:
            found.append(TextCount(token, None))
    return found


def _agrees(mention: TextCount, number: int) -> bool:
    return number >= 2 if mention.value is None else mention.value == number


Masks = dict[str, list[np.ndarray | None]]  # masklet -> decoded instances (None where one does not decode)


def _decode_checked(
    rle: Mapping[str, Any], masklet: str, index: int, size: tuple[int, int], findings: list[Finding]
) -> np.ndarray | None:
    try:
        mask = rle_utils.decode(rle)
    except rle_utils.RleError as exc:
        findings.append(Finding("bad-mask", Severity.ERROR, f"{masklet}[{index}] does not decode: {exc}", masklet, index))
        return None
    if mask.shape != size:
        findings.append(
            Finding(
                "mask-size-mismatch", Severity.ERROR,
                f"{masklet}[{index}] is {mask.shape[1]}x{mask.shape[0]}, its image is {size[1]}x{size[0]}",
                masklet, index,
            )
        )
        return None
    return mask


def _decode_masks(item: LintInput) -> tuple[Masks, list[Finding]]:
    """Decodes every masklet of the leaf against the size of its image (missing-image, bad-mask, mask-size-mismatch)."""
    findings: list[Finding] = []
    masks: Masks = {}
    for spec in item.leaf.masklets:
        if spec.image_index >= len(item.image_sizes):
            findings.append(
                Finding("missing-image", Severity.ERROR, f"{spec.name} belongs on image {spec.image_index + 1}, "
                        f"the item has {len(item.image_sizes)} image(s)", spec.name)
            )
            masks[spec.name] = []
            continue
        size = item.image_sizes[spec.image_index]
        masks[spec.name] = [
            _decode_checked(r, spec.name, i, size, findings) for i, r in enumerate(item.instances.get(spec.name, ()))
        ]
    return masks, findings


def _check_unknown_masklets(item: LintInput, masks: Masks) -> list[Finding]:
    """Instances given for a masklet the leaf does not have."""
    return [
        Finding("unknown-masklet", Severity.ERROR, f"{item.leaf.path} has no masklet {name!r}", name)
        for name in item.instances
        if name not in masks
    ]


def _count_instances(instance_masks: Sequence[np.ndarray | None]) -> int:
    """Instances that decoded and have at least one pixel."""
    return len([m for m in instance_masks if m is not None and m.any()])


def _check_count(item: LintInput, count_field: str, count_masklet: str, n_instances: int) -> list[Finding]:
    """The count label against itself and against the counted masklet."""
    if item.count is None:
        return [Finding("missing-count", Severity.ERROR, f"{count_field} is not set", count_field)]
    if item.count < 0:
        return [Finding("negative-count", Severity.ERROR, f"{count_field} is {item.count}", count_field)]
    findings: list[Finding] = []
    if item.precise_count and item.count != n_instances:
        findings.append(
            Finding(
                "count-instances-mismatch", Severity.ERROR,
                f"precise count is set and {count_field} is {item.count}, "
                f"but {count_masklet} has {n_instances} instance(s)",
                count_field,
            )
        )
    elif item.count != n_instances and item.count > 0 and n_instances > 0:
        # Without precise count the scorer grades the count softly, so a group drawn as one instance (a pile, a
        # crowd) can be meant: still a finding, but one the annotator may override with a reason.
        findings.append(
            Finding(
                "count-instances-differ", Severity.WARNING,
                f"{count_field} is {item.count} but {count_masklet} has {n_instances} instance(s): draw one "
                "instance per object, or give a reason (precise count unset: the count is scored as approximate; "
                "with precise count set this is an error)",
                count_field,
            )
        )
    if item.count > 0 and n_instances == 0:
        findings.append(
            Finding("empty-mask-positive-count", Severity.ERROR,
                    f"{count_field} is {item.count} but {count_masklet} is empty", count_masklet)
        )
    if item.count == 0 and n_instances > 0:
        findings.append(
            Finding("mask-with-zero-count", Severity.ERROR,
                    f"{count_field} is 0 but {count_masklet} has {n_instances} instance(s) "
                    "(the scorer treats a zero count as no target)", count_masklet)
        )
    return findings


def _check_count_text(
    item: LintInput, text_field: str, count_field: str, count_masklet: str, n_instances: int
) -> list[Finding]:
    """Numbers in one text that describes the counted targets: each against the count (or, failing that, the
    instances), then a warning if the text states a number but count-in-description is not set."""
    findings: list[Finding] = []
    text = item.texts.get(text_field) or ""
    mentions = text_counts(text)
    for mention in mentions:
        shown = mention.word if mention.value is None else f"{mention.word!r} ({mention.value})"
        if item.count is not None and item.count >= 0 and not _agrees(mention, item.count):
            findings.append(
                Finding("text-count-mismatch", Severity.ERROR,
                        f"{text_field} says {shown} but {count_field} is {item.count}", text_field)
            )
        elif (item.precise_count or item.count_in_description) and n_instances and not _agrees(mention, n_instances):
            findings.append(
                Finding("text-instances-mismatch", Severity.ERROR,
                        f"{text_field} says {shown} but {count_masklet} has {n_instances} instance(s)",
                        text_field)
            )
    exact = [m for m in mentions if m.value is not None]
    if text and exact and not item.count_in_description:
        findings.append(
            Finding("count-in-description-unset", Severity.WARNING,
                    f"{text_field} states a number ({exact[0].word!r}) but count-in-description is not set",
                    "count_in_description")
        )
    return findings


def _check_prompt_texts(item: LintInput) -> list[Finding]:
    """Every text the published prompt reads must be filled in (else the model reads e.g. "Task Description: ")."""
    return [
        Finding("missing-description", Severity.ERROR,
                f"{line} ({name}) is empty: the model's prompt would read \"{line}: \"", name)
        for name, line in item.leaf.prompt_fields
        if not str(item.texts.get(name) or "").strip()
    ]


def _check_count_flag(item: LintInput) -> list[Finding]:
    """count-in-description is set but none of the count texts states a number."""
    fields = item.leaf.count_text_fields
    if fields and item.count_in_description and not any(
        m.value is not None for f in fields for m in text_counts(item.texts.get(f) or "")
    ):
        return [
            Finding("count-in-description-without-number", Severity.WARNING,
                    "count-in-description is set but the description states no number", "count_in_description")
        ]
    return []


def _check_feasibility(item: LintInput, masks: Masks, options: LintOptions) -> list[Finding]:
    """The placement-feasible flag of leaves that have one, and its placement mask."""
    placed = [m for m in masks.get("masklet_placement_region", []) if m is not None and m.any()]
    if item.placement_feasible is None:
        return [Finding("missing-feasibility", Severity.ERROR, "placement_feasible is not set", "placement_feasible")]
    if item.placement_feasible is False and placed and options.forbid_mask_when_infeasible:
        return [
            Finding("mask-when-infeasible", Severity.ERROR,
                    "placement is marked infeasible but masklet_placement_region is not empty "
                    "(this project requires no placement mask when placement is infeasible)",
                    "masklet_placement_region")
        ]
    return []


def _check_required_masklets(item: LintInput, masks: Masks, options: LintOptions) -> list[Finding]:
    """Scored masklets other than the counted one must have pixels (the count checks cover the counted one),
    except a placement mask that the project requires empty because placement is infeasible."""
    leaf = item.leaf
    findings: list[Finding] = []
    excused = leaf.has_feasibility and item.placement_feasible is False and options.forbid_mask_when_infeasible
    for spec in leaf.masklets:
        if not spec.scored or spec.name == leaf.count_masklet:
            continue
        if any(m is not None and m.any() for m in masks[spec.name]) or excused:
            continue
        findings.append(Finding("empty-masklet", Severity.ERROR, f"{spec.name} ({spec.label}) is empty", spec.name))
    return findings


def _check_instance_shapes(
    masklet: str, instance_masks: Sequence[np.ndarray | None], options: LintOptions
) -> list[Finding]:
    """Each decoded instance of one masklet: no pixels, tiny fragments, small holes."""
    findings: list[Finding] = []
    for index, mask in enumerate(instance_masks):
        if mask is None:
            continue
        if not mask.any():
            findings.append(Finding("empty-instance", Severity.WARNING, f"{masklet}[{index}] has no pixels",
                                    masklet, index))
            continue
        pixels = mask.shape[0] * mask.shape[1]
        fragment_limit = max(options.fragment_min_px, int(options.fragment_fraction * pixels))
        tiny = [a for a in edits.fragments(mask) if a < fragment_limit]
        if tiny:
            findings.append(
                Finding("tiny-fragment", Severity.WARNING,
                        f"{masklet}[{index}] has {len(tiny)} fragment(s) under {fragment_limit} px "
                        f"(smallest {min(tiny)} px)", masklet, index)
            )
        hole_limit = max(options.hole_min_px, int(options.hole_fraction * pixels))
        small_holes = [a for a in edits.holes(mask) if a <= hole_limit]
        if small_holes:
            findings.append(
                Finding("small-hole", Severity.WARNING,
                        f"{masklet}[{index}] has {len(small_holes)} small hole(s) up to {hole_limit} px "
                        "(use fill-holes if they are not meant)", masklet, index)
            )
    return findings


def _check_overlaps(masklet: str, instance_masks: Sequence[np.ndarray | None], options: LintOptions) -> list[Finding]:
    """Pairs of non-empty instances of one masklet that share at least `overlap_min_px` pixels."""
    findings: list[Finding] = []
    coco = [
        (i, mask_utils.encode(np.asfortranarray(m.astype(np.uint8))))
        for i, m in enumerate(instance_masks)
        if m is not None and m.any()
    ]
    for a in range(len(coco)):
        for b in range(a + 1, len(coco)):
            overlap = int(mask_utils.area(mask_utils.merge([coco[a][1], coco[b][1]], intersect=True)))
            if overlap >= options.overlap_min_px:
                findings.append(
                    Finding("overlapping-instances", Severity.WARNING,
                            f"{masklet}[{coco[a][0]}] and [{coco[b][0]}] overlap by {overlap} px",
                            masklet, coco[b][0])
                )
    return findings


def lint(item: LintInput, options: LintOptions = LintOptions()) -> list[Finding]:
    """All findings for one item, in a stable order: masks, the prompt's texts, counts and count texts, feasibility, required
    masklets, then each masklet's instance geometry."""
    leaf = item.leaf
    masks, findings = _decode_masks(item)
    findings += _check_unknown_masklets(item, masks)
    findings += _check_prompt_texts(item)
    if leaf.count_field is not None and leaf.count_masklet is not None:
        n_instances = _count_instances(masks[leaf.count_masklet])
        findings += _check_count(item, leaf.count_field, leaf.count_masklet, n_instances)
        for text_field in leaf.count_text_fields:
            findings += _check_count_text(item, text_field, leaf.count_field, leaf.count_masklet, n_instances)
        findings += _check_count_flag(item)
    if leaf.has_feasibility:
        findings += _check_feasibility(item, masks, options)
    findings += _check_required_masklets(item, masks, options)
    for spec in leaf.masklets:
        findings += _check_instance_shapes(spec.name, masks[spec.name], options)
        findings += _check_overlaps(spec.name, masks[spec.name], options)
    return findings
