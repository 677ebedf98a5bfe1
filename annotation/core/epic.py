"""The 23 EPIC-Bench leaf tasks (from the EPIC package's taxonomy) as annotation needs them: masklets, label
fields, overlays, file names.

Rules: follows docs/formats/epic.md sections 1.2-1.3 (field and file names exact). A leaf is named by its
path under `EPIC_Bench/`, e.g. "TargetLocalization/BasicAttributes/Color". Pure data, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from scoring.benchmarks.epic.core.taxonomy import BY_TYPE_ORDER, OVERLAY_SUFFIX, TL_GROUPS


class Family(str, Enum):
    TL = "TL"
    GD = "GD"
    FP = "FP"
    VM = "VM"
    AR = "AR"
    CR = "CR"
    PR = "PR"


@dataclass(frozen=True)
class MaskletSpec:
    name: str  # e.g. "masklet_target"
    image_index: int  # which of the item's images the mask is drawn on
    scored: bool  # display-only masklets are shown to the model through an overlay, never scored
    label: str  # what the annotator is asked to draw


@dataclass(frozen=True)
class OverlaySpec:
    suffix: str  # appended to image 1's path cut at its last "_image"
    masklet: str  # which masklet the overlay highlights when the site renders it


@dataclass(frozen=True)
class Leaf:
    path: str
    family: Family
    masklets: tuple[MaskletSpec, ...]
    text_fields: tuple[str, ...]  # text_annotation fields the annotator fills in, first = the main prompt text
    count_field: str | None  # e.g. "count_target_instance"
    count_masklet: str | None  # the masklet whose instances the count counts
    count_text_fields: tuple[str, ...]  # texts that describe the counted targets (checked for numbers)
    has_feasibility: bool
    overlay: OverlaySpec | None
    images: int = 1
    # The text fields the published sample's prompt reads, each with the prompt line it becomes, in prompt order
    # (docs/formats/epic.md section 2.1: e.g. TL's `text_label` IS "Target Object Description").
    prompt_fields: tuple[tuple[str, str], ...] = ()
    prompt_hint: str = ""  # how to write several areas/objects in the prompt field, where the converter splits them

    @property
    def category(self) -> str:
        return self.path.split("/")[0]

    @property
    def group(self) -> str:
        parts = self.path.split("/")
        return parts[1] if len(parts) > 1 else ""

    @property
    def name(self) -> str:
        return self.path.split("/")[-1]

    @property
    def scored_masklets(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.masklets if m.scored)

    def prompt_line(self, name: str) -> str | None:
        """The prompt line (e.g. "Target Object Description") a text field becomes, or None if the model never sees it."""
        return dict(self.prompt_fields).get(name)

    def field_label(self, name: str) -> str:
        """What the editor calls a field: the prompt line it lands in, or a plain name saying it is stored only."""
        line = self.prompt_line(name)
        if line is not None:
            return f"{line} · in the model's prompt{'; ' + self.prompt_hint if self.prompt_hint else ''}"
        if name in self.text_fields:
            return f"{field_label(name)} · not in the prompt"
        return field_label(name)

    def name_label(self, name: str) -> str:
        """A plain label for any of the leaf's names: a text or count field, or a masklet (what it holds)."""
        spec = next((m for m in self.masklets if m.name == name), None)
        if spec is not None:
            kind = "scored mask" if spec.scored else "reference mask, shown through the overlay"
            return f"{spec.label[:1].upper()}{spec.label[1:]} ({kind})"
        return self.field_label(name)

    def masklet(self, name: str) -> MaskletSpec:
        for spec in self.masklets:
            if spec.name == name:
                return spec
        raise KeyError(f"{self.path} has no masklet {name!r}; it has {', '.join(m.name for m in self.masklets)}")


def _tl(group: str, name: str) -> Leaf:
    return Leaf(
        path=f"TargetLocalization/{group}/{name}",
        family=Family.TL,
        masklets=(MaskletSpec("masklet_target", 0, True, "each object matching the description"),),
        text_fields=("text_label", "target_object_description_en", "target_object_description_cn"),
        count_field="count_target_instance",
        count_masklet="masklet_target",
        count_text_fields=("text_label", "target_object_description_en"),
        has_feasibility=False,
        overlay=None,
        prompt_fields=(("text_label", "Target Object Description"),),
    )


def _fp(side: str) -> Leaf:
    return Leaf(
        path=f"Navigation/FeasiblePath/FeasiblePath_{side}",
        family=Family.FP,
        masklets=(
            MaskletSpec("masklet_path", 0, True, "the feasible ground area"),
            MaskletSpec(
                "masklet_target_area", 0, True,
                "the goal area" if side == "Ego" else "both endpoint areas (two separate blobs)",
            ),
        ),
        text_fields=("text_label", "target_area_description_en", "visually_blocked"),
        count_field=None,
        count_masklet=None,
        count_text_fields=(),
        has_feasibility=False,
        overlay=OverlaySpec(OVERLAY_SUFFIX[Family.FP], "masklet_target_area"),
        prompt_fields=(("text_label", "Target Area Description"),),
        prompt_hint="separate several areas with 22",
    )


def _cr(kind: str) -> Leaf:
    return Leaf(
        path=f"Manipulation/ContactRelationship/ContactRelationship_{kind}",
        family=Family.CR,
        masklets=(
            MaskletSpec("masklet_reference_object", 0, False, "the reference object(s)"),
            MaskletSpec("masklet_contact_target", 0, True, "each object touching the reference(s)"),
        ),
        text_fields=("text_label",),
        count_field="count_contact_target",
        count_masklet="masklet_contact_target",
        # The text describes the reference objects, not the counted targets.
        count_text_fields=(),
        has_feasibility=False,
        overlay=OverlaySpec(OVERLAY_SUFFIX[Family.CR], "masklet_reference_object"),
        prompt_fields=(("text_label", "Reference Object Description"),),
        prompt_hint="" if kind == "TypeOne" else "separate the objects with 2",
    )


_ALL: list[Leaf] = [_tl(group, name) for group, names in TL_GROUPS.items() for name in names]
_ALL += [
    Leaf(
        path="Navigation/GroundDetection",
        family=Family.GD,
        masklets=(MaskletSpec("masklet_ground", 0, True, "each separate ground region"),),
        text_fields=("scene_description_en", "precise_description"),
        count_field=None,
        count_masklet=None,
        count_text_fields=(),
        has_feasibility=False,
        overlay=None,
    ),
    _fp("Ego"),
    _fp("Exo"),
    Leaf(
        path="Navigation/VisualMatching",
        family=Family.VM,
        masklets=(
            MaskletSpec("masklet_reference_area", 0, False, "the reference area on image A"),
            MaskletSpec("masklet_matching_area", 1, True, "each matching area on image B"),
        ),
        text_fields=("reference_area_description_en",),
        count_field="count_matching_area",
        count_masklet="masklet_matching_area",
        count_text_fields=("reference_area_description_en",),
        has_feasibility=False,
        overlay=OverlaySpec(OVERLAY_SUFFIX[Family.VM], "masklet_reference_area"),
        images=2,
    ),
    Leaf(
        path="Manipulation/AffordanceRegion",
        family=Family.AR,
        masklets=(
            MaskletSpec("masklet_reference_area", 0, False, "the reference object"),
            MaskletSpec("masklet_affordance_region", 0, True, "the region used for the task"),
        ),
        text_fields=("text_label", "reference_object_description_en", "action_en", "num_hands"),
        count_field=None,
        count_masklet=None,
        count_text_fields=(),
        has_feasibility=False,
        overlay=OverlaySpec(OVERLAY_SUFFIX[Family.AR], "masklet_reference_area"),
        prompt_fields=(("reference_object_description_en", "Reference Object Description"),
                       ("text_label", "Task Description")),
    ),
    _cr("TypeOne"),
    _cr("TypeTwo"),
    _cr("TypeThree"),
    Leaf(
        path="Manipulation/PlacementRegion",
        family=Family.PR,
        masklets=(
            MaskletSpec("masklet_reference_object", 0, False, "the object to place"),
            MaskletSpec("masklet_placement_region", 0, True, "the described placement region"),
        ),
        text_fields=("reference_object_description_en", "placement_region_description_en"),
        count_field=None,
        count_masklet=None,
        count_text_fields=(),
        has_feasibility=True,
        overlay=OverlaySpec(OVERLAY_SUFFIX[Family.PR], "masklet_reference_object"),
        prompt_fields=(("reference_object_description_en", "Reference Object Description"),
                       ("placement_region_description_en", "Placement Region Description")),
    ),
]

LEAVES: dict[str, Leaf] = {leaf.path: leaf for leaf in _ALL}
# The 23 leaves are EPIC-Bench's own (its taxonomy's `by_type` keys); this table only adds what annotation needs.
assert list(LEAVES) == list(BY_TYPE_ORDER), "annotation's leaf table must follow the EPIC taxonomy"


# What the editor shows for each label field (the EPIC field names stay the keys on the wire and in exports).
FIELD_LABELS: dict[str, str] = {
    # `text_label` is always a prompt field; its label is the prompt line it becomes (Leaf.field_label).
    "text_label": "Main description",
    "target_object_description_en": "Target object, described (English)",
    "target_object_description_cn": "Target object, described (Chinese)",
    "target_area_description_en": "Target area, described (English)",
    "visually_blocked": "What blocks the view (if anything)",
    "scene_description_en": "The scene, described (English)",
    "precise_description": "Precise description",
    "reference_area_description_en": "Reference area, described (English)",
    "reference_object_description_en": "Reference object, described (English)",
    "placement_region_description_en": "Placement region, described (English)",
    "action_en": "The action (English)",
    "num_hands": "Number of hands",
    "count_target_instance": "How many target objects",
    "count_contact_target": "How many objects are touched",
    "count_matching_area": "How many matching areas",
}


def field_label(name: str) -> str:
    """A plain label for an EPIC field name; unknown names are made readable rather than shown raw."""
    if name in FIELD_LABELS:
        return FIELD_LABELS[name]
    words = name.replace("_en", " (English)").replace("_cn", " (Chinese)").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def leaf_for(path: str) -> Leaf:
    try:
        return LEAVES[path]
    except KeyError:
        raise KeyError(f"unknown EPIC leaf {path!r}; expected one of the 23 leaf paths") from None
