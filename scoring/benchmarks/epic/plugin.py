"""EPIC-Bench, declared once: its board is built from the core's taxonomy (3 categories, 9 groups, 23 leaves)."""
from __future__ import annotations

from scoring.benchmarks.epic.core.taxonomy import CATEGORIES, CATEGORY_CODES, CATEGORY_TITLES, GROUP_TITLES, LEAVES
from scoring.core.columns import BoardSpec, Column, Level
from scoring.core.plugin import BenchmarkPlugin
from scoring.core.published import PublishedTable

SLUG = "epic-bench"


def _short(leaf_name: str) -> str:
    return leaf_name.replace("ContactRelationship_", "CR-").replace("FeasiblePath_", "FP-")


def board() -> BoardSpec:
    columns = [Column("overall", "Average", "Micro mean over all samples")]
    for code, title in GROUP_TITLES.items():
        leaves = [leaf for leaf in LEAVES if leaf.group_code == code]
        category = CATEGORY_TITLES[leaves[0].category]
        columns.append(Column(code, code, title, group=category))
        # A one-leaf group is its own leaf; repeating it as a leaf column adds nothing.
        if len(leaves) > 1:
            columns += [
                Column(leaf.by_type, _short(leaf.name), leaf.by_type, group=category, level=Level.LEAF, parent=code)
                for leaf in leaves
            ]
    columns += [
        Column(CATEGORY_CODES[c], CATEGORY_CODES[c], f"{CATEGORY_TITLES[c]} (category mean)", group="Categories",
               level=Level.EXTRA)
        for c in CATEGORIES
    ]
    return BoardSpec(SLUG, tuple(columns))


# On a hidden split a submitter sees what the scorer read from the answer and how it scored: boxes and path points
# in pixels, counts, feasibility, IoU and the per-metric scores. Never GT masks, counts, feasibility or emptiness,
# the GT geometry of a path (start-goal distance, segment bound), GT problems, nor the weights (they follow from
# GT flags).
HIDDEN_SPLIT_DETAIL_KEYS = frozenset({
    "line", "notes", "message",
    "localization", "coordinate_system", "pred_boxes", "boxes_px", "pred_boxes_px", "pred_empty", "pred_shape", "iou",
    "count", "pred_count",
    "binary", "pred",
    "path", "points_before_filter", "points_after_filter", "points_px", "path_points_px", "point_scores",
    "start_end", "feasibility",
    "localization_score", "count_score", "path_score", "binary_score",  # components
})

PLUGIN = BenchmarkPlugin(
    slug=SLUG,
    title="EPIC-Bench",
    scorer="scoring.benchmarks.epic.scorer:score",
    precheck="scoring.benchmarks.epic.scorer:precheck",
    sniff="scoring.benchmarks.epic.scorer:sniff",
    board=board(),
    published=PublishedTable(SLUG, "epic_bench_table8.csv", "average", tuple(GROUP_TITLES), has_thinking=True),
    cli="scoring.benchmarks.epic.core.cli",
    cli_help="EPIC-Bench: score std_format or raw responses",
    demo_command="make_demo_epic",
    hidden_split_detail_keys=HIDDEN_SPLIT_DETAIL_KEYS,
)
