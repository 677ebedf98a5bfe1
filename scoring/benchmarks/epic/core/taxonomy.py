"""EPIC-Bench task taxonomy: 3 categories, 9 groups, 23 leaves, their report keys and the GT field names.

Rules (spec section 5.4): `by_type` keys and their order, `by_group` keys and their order, and the leaf
resolver that turns (category, type, gt_json_path) into a leaf. Nothing here reads files.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Mapping

CATEGORIES: tuple[str, ...] = ("TargetLocalization", "Navigation", "Manipulation")
CATEGORY_CODES: Mapping[str, str] = {"TargetLocalization": "TL", "Navigation": "Nav", "Manipulation": "Manip"}
CATEGORY_TITLES: Mapping[str, str] = {
    "TargetLocalization": "Target Localization", "Navigation": "Navigation", "Manipulation": "Manipulation"
}

TL_GROUPS: Mapping[str, tuple[str, ...]] = {
    "BasicAttributes": ("Category", "Color", "Geometry", "Material", "ObjectProjections", "RelativePerception"),
    "SpatialRelatedAttributes": ("Orientation", "OrientationHuman", "SpatialRelation", "SpatialRelationHuman"),
    "EmbodiedCompositionalAttributes": ("ObjectState", "PartWhole", "PartWholeHuman", "Spoken"),
}
TL_LEAVES: tuple[str, ...] = tuple(leaf for leaves in TL_GROUPS.values() for leaf in leaves)


@dataclass(frozen=True)
class Leaf:
    category: str
    group: str
    name: str
    by_type: str
    by_group: str
    group_code: str


_GROUP_CODES = {
    "BasicAttributes": "BA",
    "SpatialRelatedAttributes": "SRA",
    "EmbodiedCompositionalAttributes": "ECA",
    "GroundDetection": "GD",
    "FeasiblePath": "FP",
    "VisualMatching": "VM",
    "AffordanceRegion": "AR",
    "ContactRelationship": "CR",
    "PlacementRegion": "PR",
}


# The paper's names of the nine groups (its Table 8 headers), by group code.
GROUP_TITLES: Mapping[str, str] = {
    "BA": "Basic Attributes",
    "SRA": "Spatial-Related Attributes",
    "ECA": "Embodied Compositional Attributes",
    "GD": "Ground Detection",
    "FP": "Feasible Path",
    "VM": "Visual Matching",
    "AR": "Affordance Region",
    "CR": "Contact Relationship",
    "PR": "Placement Region",
}


def _leaf(category: str, group: str, name: str) -> Leaf:
    by_group = f"{category}/{group}"
    by_type = by_group if name == group else f"{by_group}/{name}"
    return Leaf(category, group, name, by_type, by_group, _GROUP_CODES[group])


# Order of section 5.4 (TL groups: Basic, SpatialRelated, EmbodiedCompositional).
LEAVES: tuple[Leaf, ...] = (
    *(_leaf("TargetLocalization", group, name) for group, names in TL_GROUPS.items() for name in names),
    _leaf("Navigation", "GroundDetection", "GroundDetection"),
    _leaf("Navigation", "FeasiblePath", "FeasiblePath_Ego"),
    _leaf("Navigation", "FeasiblePath", "FeasiblePath_Exo"),
    _leaf("Navigation", "VisualMatching", "VisualMatching"),
    _leaf("Manipulation", "AffordanceRegion", "AffordanceRegion"),
    _leaf("Manipulation", "ContactRelationship", "ContactRelationship_TypeOne"),
    _leaf("Manipulation", "ContactRelationship", "ContactRelationship_TypeTwo"),
    _leaf("Manipulation", "ContactRelationship", "ContactRelationship_TypeThree"),
    _leaf("Manipulation", "PlacementRegion", "PlacementRegion"),
)
LEAF_BY_NAME: Mapping[str, Leaf] = {leaf.name: leaf for leaf in LEAVES}
BY_TYPE_ORDER: tuple[str, ...] = tuple(leaf.by_type for leaf in LEAVES)
BY_GROUP_ORDER: tuple[str, ...] = tuple(dict.fromkeys(leaf.by_group for leaf in LEAVES))
GROUP_CODES: tuple[str, ...] = tuple(dict.fromkeys(leaf.group_code for leaf in LEAVES))
GROUP_CODE_BY_KEY: Mapping[str, str] = {leaf.by_group: leaf.group_code for leaf in LEAVES}

# Families share one scoring rule and one set of GT field names.
TL, GD, FP, VM, AR, CR, PR = "TL", "GD", "FP", "VM", "AR", "CR", "PR"

_NAV_TYPES = {
    "GroundDetection": GD,
    "FeasiblePath": FP,
    "FeasiblePath_Ego": FP,
    "FeasiblePath_Exo": FP,
    "VisualMatching": VM,
}
_MANIP_TYPES = {
    "AffordanceRegion": AR,
    "Affordance": AR,
    "ContactRelationship": CR,
    "ContactRelationship_TypeOne": CR,
    "ContactRelationship_TypeTwo": CR,
    "ContactRelationship_TypeThree": CR,
    "PlacementRegion": PR,
    "Placement": PR,
}


def family(category: object, task_type: object) -> str | None:
    """The scoring family of a registered (category, type) pair, or None (placeholder scorer, score 0)."""
    if not isinstance(category, str) or not isinstance(task_type, str):
        return None
    if category == "TargetLocalization":
        return TL if task_type in TL_LEAVES or task_type in TL_GROUPS else None
    if category == "Navigation":
        return _NAV_TYPES.get(task_type)
    if category == "Manipulation":
        return _MANIP_TYPES.get(task_type)
    return None


@dataclass(frozen=True)
class GTFields:
    """Names of the GT fields one family reads (None where the family has no such field)."""

    localization: str | None = None
    count: str | None = None
    precise: tuple[str, ...] = ()
    in_description: str | None = None
    feasibility: tuple[str, ...] = ()
    path: str | None = None
    target_area: str | None = None


_TL_FIELDS = GTFields("masklet_target", "count_target_instance", ("precise_count",), "count_in_description")
_CR_FIELDS = GTFields("masklet_contact_target", "count_contact_target", ("precise_count",), "count_in_description")
GT_FIELDS: Mapping[str, GTFields] = {
    TL: _TL_FIELDS,
    GD: GTFields(localization="masklet_ground"),
    FP: GTFields(path="masklet_path", target_area="masklet_target_area"),
    VM: GTFields(
        "masklet_matching_area", "count_matching_area", ("precise_count", "Precise_Count"), "count_in_description"
    ),
    AR: GTFields(localization="masklet_affordance_region"),
    CR: _CR_FIELDS,
    PR: GTFields(localization="masklet_placement_region", feasibility=("placement_feasibility", "placement_feasible")),
}

# The overlay image shown to the model beside image 1 (its path: image 1's stem + this suffix), by family.
OVERLAY_SUFFIX: Mapping[str, str] = {
    FP: "_target_area_overlay.png",
    VM: "_reference_area_overlay.png",
    AR: "_reference_area_overlay.png",
    CR: "_reference_object_overlay.png",
    PR: "_reference_object_overlay.png",
}

# Which of the four response fields each family scores (section 3, rule 14).
REQUIRED_FIELDS: Mapping[str, frozenset[str]] = {
    TL: frozenset({"localization", "count"}),
    GD: frozenset({"localization"}),
    FP: frozenset({"path"}),
    VM: frozenset({"localization", "count"}),
    AR: frozenset({"localization"}),
    CR: frozenset({"localization", "count"}),
    PR: frozenset({"localization", "binary"}),
}

_LEAF_NAMES = frozenset(LEAF_BY_NAME)


def _path_parts(path: str | None) -> tuple[str, ...]:
    if not path or not isinstance(path, str):
        return ()
    return PurePosixPath(path).parts


def _leaf_from_path(path: str | None, after: str | None = None) -> str | None:
    parts = _path_parts(path)
    if after:
        for i, part in enumerate(parts[:-1]):
            if part == after and parts[i + 1] in _LEAF_NAMES:
                return parts[i + 1]
    return next((part for part in parts if part in _LEAF_NAMES), None)


def resolve_leaf(category: object, task_type: object, gt_json_path: str | None) -> Leaf | None:
    """The leaf a sample counts toward in `by_type`/`by_group`, or None (it then counts in overall only)."""
    if not isinstance(category, str):
        return None
    if not isinstance(task_type, str):
        task_type = ""
    name: str | None
    if category == "TargetLocalization":
        if task_type in TL_LEAVES:
            name = task_type
        elif task_type in TL_GROUPS:
            name = _leaf_from_path(gt_json_path, after=task_type)
        else:
            name = _leaf_from_path(gt_json_path)
        # As the reference does, any of the 23 leaf names found in the path counts, whatever its category.
        return LEAF_BY_NAME.get(name or "")
    if category == "Navigation":
        name = task_type
        if name == "FeasiblePath":
            inferred = _leaf_from_path(gt_json_path)
            if inferred in ("FeasiblePath_Ego", "FeasiblePath_Exo"):
                name = inferred
    elif category == "Manipulation":
        name = {"Affordance": "AffordanceRegion", "Placement": "PlacementRegion"}.get(task_type, task_type)
        if name == "ContactRelationship":
            inferred = _leaf_from_path(gt_json_path)
            if inferred and inferred.startswith("ContactRelationship_"):
                name = inferred
    else:
        return None
    return LEAF_BY_NAME.get(name)
