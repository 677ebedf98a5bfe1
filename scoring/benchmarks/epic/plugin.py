"""EPIC-Bench, declared once: its board is built from the core's taxonomy (3 categories, 9 groups, 23 leaves)."""
from __future__ import annotations

from scoring.benchmarks.epic.core.fields import AUTO, COORDINATE_MEANINGS, COORDINATE_SYSTEMS, FAMILY_COORDINATES
from scoring.benchmarks.epic.core.taxonomy import CATEGORIES, CATEGORY_CODES, CATEGORY_TITLES, GROUP_TITLES, LEAVES
from scoring.core.columns import BoardSpec, Column, Level
from scoring.core.plugin import (
    BenchmarkPlugin,
    Drilldown,
    FormatGuide,
    PublicMedia,
    Reading,
    ScoringProtocol,
    UploadOption,
)
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

FORMAT = FormatGuide(
    summary=(
        "One JSON object per line, one line per sample, in either of the toolkit's two formats. Raw responses (tick "
        "\"raw responses\" when you upload): the sample's images, as the split's inputs name them, and the model's "
        "text, from which the scorer reads a JSON answer (a ```json block first, else the braces around the task's "
        "keys; <think>...</think> is dropped). Or std_format, as the toolkit's parser writes it: the sample's key and "
        "the four formatted_response_* fields. A sample without a line scores 0 as no valid response."),
    file_types=("JSON Lines (.jsonl)", "a JSON array of the same objects (.json)"),
    fields=(
        ("images", "raw: the sample's image paths from the EPIC_Bench/ folder on (any prefix before it is ignored); "
                   "they tell which sample the line answers"),
        ("response", "raw: the model's text; the answer object in it has the task's keys: bounding_boxes "
                     "[[x1, y1, x2, y2], ...], number_of_objects (target localization) or number_of_instances "
                     "(visual matching, contact), points [[x, y], ...] (feasible path), placement_feasibility "
                     "(placement)"),
        ("key", "std_format: the sample's key (its GT path from EPIC_Bench/ on); or ground_truth.gt_json_path"),
        ("formatted_response_localization / _count / _path / _binary",
         "std_format: boxes, the count, path points and the yes/no answer, each a one-item list; \"Not Required\" "
         "for a field the task does not score"),
        ("coordinate_system", "optional, per line: auto, absolute, normalized_0_1 or normalized_0_1000; the upload's "
                              "coordinate mode overrides it"),
    ),
    example_lines=(
        ("raw response (target localization)",
         '{"images": ["EPIC_Bench/TargetLocalization/BasicAttributes/Category/category_0000/category_0000_image.jpg"]'
         ', "response": "```json\\n{\\"number_of_objects\\": 1, \\"bounding_boxes\\": [[120, 80, 360, 300]]}'
         '\\n```"}'),
        ("std_format (ground detection)",
         '{"key": "EPIC_Bench/Navigation/GroundDetection/gd_0000/gd_0000_mask_rle.json", '
         '"formatted_response_localization": [[120, 80, 360, 300]], "formatted_response_count": ["Not Required"], '
         '"formatted_response_path": ["Not Required"], "formatted_response_binary": ["Not Required"]}'),
    ),
    options=(
        ("raw", "the file holds raw responses (the form's \"raw responses\" box; client --raw)"),
        ("coord_mode", "the coordinate system of every box and point: " + ", ".join(COORDINATE_SYSTEMS)
         + " (the form's coordinate mode; client --coord-mode). Left at auto: each line's coordinate_system, else the "
         "system of the model's family where the model's name shows one, else detection per sample; the pre-check "
         "(page and API, given the model's name) says which it applies"),
    ),
    coordinate_systems=tuple((name, COORDINATE_MEANINGS[name]) for name in COORDINATE_SYSTEMS),
    model_coordinates=FAMILY_COORDINATES,
    notes=(
        "Boxes are [x1, y1, x2, y2]; a box given the other way round is reordered. Gemini prints [ymin, xmin, ymax, "
        "xmax] unless asked otherwise: ask it for [x1, y1, x2, y2].",
        "The example file answers each sample it holds with one made-up box (or path): it scores, low.",
        "To run a model as the paper did, ask it with the paper's prompts (below; its App. C, the public toolkit's "
        "texts): each split's inputs download holds prompts.jsonl, one line per sample with the system message, the "
        "user message (one <image> placeholder per image, in the order of images) and the images, and "
        "prompt_templates.json, the texts per task type. The default prompts name no coordinate system: choose the "
        "coordinate mode your model answers in when you upload.",
    ),
    example_record="scoring.benchmarks.epic.core.example:example_record",
    example_options=(("raw", True),),
    prompts="scoring.benchmarks.epic.core.prompts:format_prompts",
    input_files="scoring.benchmarks.epic.core.prompts:input_files",
    line_keys=("images", "response", "key", "id", "sample_id", "ground_truth", "task_type", "task_category",
               "formatted_response_*", "coordinate_system"),
    line_signatures=(("images", "response"), ("formatted_response_*",)),
)

PROTOCOL = ScoringProtocol(
    text=("Every upload is scored twice in one pass: by the public toolkit's reading, which produced every reported "
          "row and ranks the board, and by the hub's strict reading (deviations B1 and B5), a second labelled figure "
          "set. Coordinates: the mode chosen at upload, else each line's coordinate_system, else the system of the "
          "model's family (named in the model's name), else auto, decided per sample from its numbers. Reported "
          "rows are the papers' numbers, by the toolkit's reading."),
    docs="docs/epic-scoring.md",
)

# The headline's reading first. Scores of epic-1.0 were made under one reading, the upload's: the default was the
# strict one, the compat option the toolkit's.
READINGS = (
    Reading(key="toolkit", label="the toolkit's reading",
            description=("as the public toolkit reads answers: a string where boxes or points are expected is an "
                         "empty answer (1.0 against an empty ground truth)"),
            legacy_versions=("epic-1.0 (compat)",)),
    Reading(key="strict", label="the strict reading",
            description=("the hub's reading: a string (other than Not Required) where boxes or points are expected "
                         "is an invalid response scoring 0 (deviation B1), a ground truth error is never the "
                         "model's (B5)"),
            legacy_versions=("epic-1.0 (default)",)),
)

COORD_MODE = UploadOption(
    name="coord_mode",
    label="Coordinate mode",
    help=("EPIC-Bench only: how boxes and points are measured. Auto takes the model family's system where the "
          "model's name shows one of the toolkit's families ("
          + "; ".join(f"{family} {mode}" for family, mode in FAMILY_COORDINATES) + "); for other models it decides "
          "per sample from its numbers, and reads 0-1000 answers on images over 1000 px as pixels: choose the mode "
          "your model answers in."),
    choices=tuple((mode, "auto (the model family's, else detect per sample)" if mode == AUTO else mode)
                  for mode in COORDINATE_SYSTEMS),
    default=AUTO,
    preset_flag="family",
    preset_help=("EPIC-Bench: take the coordinate mode from this model family's usual one: "
                 + ", ".join(f"{f} {m}" for f, m in FAMILY_COORDINATES)),
    presets=FAMILY_COORDINATES,
)

PLUGIN = BenchmarkPlugin(
    slug=SLUG,
    title="EPIC-Bench",
    scorer="scoring.benchmarks.epic.scorer:score",
    scorer_version="scoring.benchmarks.epic.core.scorer:SCORER_VERSION",
    precheck="scoring.benchmarks.epic.scorer:precheck",
    sniff="scoring.benchmarks.epic.scorer:sniff",
    board=board(),
    published=PublishedTable(SLUG, "epic_bench_table8.csv", "average", tuple(GROUP_TITLES), has_thinking=True),
    cli="scoring.benchmarks.epic.core.cli",
    cli_help="EPIC-Bench: score std_format or raw responses",
    demo_command="make_demo_epic",
    analyses="scoring.benchmarks.epic.core.analysis:figures",
    analysis_truth_figures=("counting-exact", "counting-soft"),
    analysis_summaries="scoring.benchmarks.epic.core.analysis:SUMMARIES",
    format=FORMAT,
    hidden_split_detail_keys=HIDDEN_SPLIT_DETAIL_KEYS,
    upload_options=(COORD_MODE,),
    upload_hint="std_format or raw responses (JSONL)",
    public_media=PublicMedia(folder=SLUG, hidden_copy="scoring.benchmarks.epic.importer:hidden_copy"),
    django_app="scoring.benchmarks.epic.apps.EpicBenchConfig",
    headline_key="overall",
    drilldown=Drilldown(
        question_keys=("prompt",),
        template="benchmarks/epic/sample.html",
        page="scoring.benchmarks.epic.drilldown:page",
        page_template="benchmarks/epic/samples_legend.html",
        image="scoring.benchmarks.epic.drilldown:sample_image",
    ),
    sample_details="scoring.benchmarks.epic.core.overlay:EpicSampleDetails",
    protocol=PROTOCOL,
    readings=READINGS,
    provenance_options="scoring.benchmarks.epic.scorer:provenance_options",
    rescorer="scoring.benchmarks.epic.scorer:score",
    runner="scoring.benchmarks.epic.core.run:PROTOCOL",
    standin="scoring.benchmarks.epic.core.run:standin",
)
