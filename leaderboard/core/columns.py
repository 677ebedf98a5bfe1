"""The columns of each benchmark's board, as the papers lay them out.

A column has a key (the Score.breakdown key, or "overall"), a label, the header group it sits under, a
direction (higher or lower is better) and a visibility level: headline columns are always shown, leaves
when their group is expanded, extras on demand. Pure data, no Django.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Direction(str, Enum):
    UP = "up"  # higher is better
    DOWN = "down"  # lower is better


class Level(str, Enum):
    HEADLINE = "headline"
    LEAF = "leaf"
    EXTRA = "extra"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    title: str = ""
    group: str = ""  # header group label ("" for none)
    direction: Direction = Direction.UP
    level: Level = Level.HEADLINE
    parent: str = ""  # for leaves: the headline column they expand from
    digits: int = 2

    @property
    def better_arrow(self) -> str:
        return "↑" if self.direction is Direction.UP else "↓"


@dataclass(frozen=True)
class BoardSpec:
    benchmark: str
    columns: tuple[Column, ...]
    default_sort: str = "overall"

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)

    def visible(self, *, expanded: bool = False, extras: bool = False) -> tuple[Column, ...]:
        shown = {Level.HEADLINE}
        if expanded:
            shown.add(Level.LEAF)
        if extras:
            shown.add(Level.EXTRA)
        return tuple(c for c in self.columns if c.level in shown)

    @property
    def has_leaves(self) -> bool:
        return any(c.level is Level.LEAF for c in self.columns)

    @property
    def has_extras(self) -> bool:
        return any(c.level is Level.EXTRA for c in self.columns)


def _epic() -> BoardSpec:
    tl = "TargetLocalization"
    groups = [
        ("BA", "Basic Attributes", "Target Localization", [
            f"{tl}/BasicAttributes/{leaf}"
            for leaf in ("Category", "Color", "Geometry", "Material", "ObjectProjections", "RelativePerception")
        ]),
        ("SRA", "Spatial-Related Attributes", "Target Localization", [
            f"{tl}/SpatialRelatedAttributes/{leaf}"
            for leaf in ("Orientation", "OrientationHuman", "SpatialRelation", "SpatialRelationHuman")
        ]),
        ("ECA", "Embodied Compositional Attributes", "Target Localization", [
            f"{tl}/EmbodiedCompositionalAttributes/{leaf}"
            for leaf in ("ObjectState", "PartWhole", "PartWholeHuman", "Spoken")
        ]),
        ("GD", "Ground Detection", "Navigation", ["Navigation/GroundDetection"]),
        ("FP", "Feasible Path", "Navigation", [
            "Navigation/FeasiblePath/FeasiblePath_Ego", "Navigation/FeasiblePath/FeasiblePath_Exo"
        ]),
        ("VM", "Visual Matching", "Navigation", ["Navigation/VisualMatching"]),
        ("AR", "Affordance Region", "Manipulation", ["Manipulation/AffordanceRegion"]),
        ("CR", "Contact Relationship", "Manipulation", [
            f"Manipulation/ContactRelationship/ContactRelationship_{t}" for t in ("TypeOne", "TypeTwo", "TypeThree")
        ]),
        ("PR", "Placement Region", "Manipulation", ["Manipulation/PlacementRegion"]),
    ]
    cols: list[Column] = [Column("overall", "Average", "Micro mean over all samples")]
    for key, title, category, leaves in groups:
        cols.append(Column(key, key, title, group=category))
        for leaf in leaves:
            # A one-leaf group is its own leaf; repeating it as a leaf column adds nothing.
            if len(leaves) > 1:
                short = leaf.rsplit("/", 1)[-1].replace("ContactRelationship_", "CR-").replace("FeasiblePath_", "FP-")
                cols.append(Column(leaf, short, leaf, group=category, level=Level.LEAF, parent=key))
    cols += [
        Column("TL", "TL", "Target Localization (category mean)", group="Categories", level=Level.EXTRA),
        Column("Nav", "Nav", "Navigation (category mean)", group="Categories", level=Level.EXTRA),
        Column("Manip", "Manip", "Manipulation (category mean)", group="Categories", level=Level.EXTRA),
    ]
    return BoardSpec("epic-bench", tuple(cols))


PLAN_DIMENSIONS = (
    ("spatial_cognition", "Spatial Cognition", ("OO", "MD", "AR", "TD", "SR", "SpR")),
    ("temporal_reasoning", "Temporal Reasoning", ("PT", "TO", "PC", "IA", "MR")),
    ("multi_step_planning", "Multi-Step Planning", ("CS", "CP", "RP", "DP", "Route")),
)
PLAN_SUBTASK_TITLES = {
    "OO": "Occlusion Order", "MD": "Mirror Distinction", "AR": "Action Recovery", "TD": "Target Discovery",
    "SR": "State Recognition", "SpR": "Spatial Relations", "PT": "Progress Tracking", "TO": "Temporal Ordering",
    "PC": "Persistent Counting", "IA": "Instruction Alignment", "MR": "Motion Retrieval",
    "CS": "Constraint Sequencing", "CP": "Capacity Planning", "RP": "Rearrangement Planning",
    "DP": "Dependency Planning", "Route": "Route Planning",
}


def _plan() -> BoardSpec:
    cols: list[Column] = [Column("overall", "Overall", "Accuracy over all items", digits=1)]
    for key, title, subtasks in PLAN_DIMENSIONS:
        cols.append(Column(key, title, title, group="Dimensions", digits=1))
        for code in subtasks:
            cols.append(Column(code, code, PLAN_SUBTASK_TITLES[code], group=title, level=Level.LEAF, parent=key, digits=1))
    cols += [
        Column("single_choice", "Single-choice", "Accuracy on single-choice items", group="Question type",
               level=Level.EXTRA, digits=1),
        Column("open", "Open", "Accuracy on open-ended items", group="Question type", level=Level.EXTRA, digits=1),
    ]
    return BoardSpec("plan-bench", tuple(cols))


def _vge() -> BoardSpec:
    down = Direction.DOWN
    cols = (
        # SR is VGEBench's headline figure; the board keeps it under the key "overall" like the others.
        Column("overall", "SR", "Success rate (all goals of the task reached)"),
        Column("SSR", "SSR", "Sub-goal success rate"),
        Column("SPL", "SPL", "Success weighted by path length"),
        Column("State-F1", "State-F1", "F1 of visited vs required states"),
        Column("EIR", "EIR", "Effective interaction rate"),
        Column("TIR", "TIR", "Task-relevant interaction rate"),
        Column("VSPS", "VSPS", "View switches per sub-goal (per episode)", direction=down),
        Column("GVPE", "GVPE", "View switches per goal, pooled", direction=down),
        Column("EER", "EER", "Effective execution rate"),
        Column("PSR", "PSR", "Precise success rate", level=Level.EXTRA, group="On demand"),
        Column("AvgDist", "Avg Dist", "Mean click distance to the target (0..1000)", direction=down,
               level=Level.EXTRA, group="On demand"),
        Column("AvgWDist", "Avg W-Dist", "Mean weighted click distance (0..1000)", direction=down,
               level=Level.EXTRA, group="On demand"),
    )
    return BoardSpec("vge-bench", cols)


SPECS: dict[str, BoardSpec] = {spec.benchmark: spec for spec in (_epic(), _plan(), _vge())}


def spec_for(benchmark: str) -> BoardSpec:
    """The board layout of a benchmark; an unknown benchmark gets a board with its overall column only."""
    return SPECS.get(benchmark) or BoardSpec(benchmark, (Column("overall", "Overall"),))
