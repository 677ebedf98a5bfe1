"""PLAN-Bench, declared once: its board is built from the core's dimensions and subtasks; its judge queue and
audit pages are mounted under /plan/."""
from __future__ import annotations

from scoring.benchmarks.plan.core.types import DIMENSION_KEYS, DIMENSIONS, SUBTASK_NAMES, SUBTASKS
from scoring.core.columns import BoardSpec, Column, Level
from scoring.core.plugin import BenchmarkPlugin, BoardExtras, Drilldown, FormatGuide, PublicMedia, ScoringProtocol
from scoring.core.published import PublishedTable

SLUG = "plan-bench"


def board() -> BoardSpec:
    columns = [Column("overall", "Overall", "Accuracy over all items", digits=1)]
    for title, subtasks in DIMENSIONS.items():
        key = DIMENSION_KEYS[title]
        columns.append(Column(key, title, title, group="Dimensions", digits=1))
        columns += [
            Column(code, code, SUBTASK_NAMES[code], group=title, level=Level.LEAF, parent=key, digits=1)
            for code in subtasks
        ]
    columns += [
        Column("single_choice", "Single-choice", "Accuracy on single-choice items", group="Question type",
               level=Level.EXTRA, digits=1),
        Column("open", "Open", "Accuracy on open-ended items", group="Question type", level=Level.EXTRA, digits=1),
    ]
    return BoardSpec(SLUG, tuple(columns))


# On a hidden split a submitter sees its output, the answer read from it, the verdict's source and the judge's name.
# Never the answer or its hint, the judge's reply or note (a judge may quote the answer), nor the item fingerprint
# (a hash over the answer: a few guesses would confirm it).
HIDDEN_SPLIT_DETAIL_KEYS = frozenset({
    "dimension", "type", "output", "extracted", "decided_by", "judge", "prompt_version", "reasoning_stripped",
    "correct",  # components
})

FORMAT = FormatGuide(
    summary=("One prediction per item: the item's id and the model's output as text. Single-choice outputs are "
             "read for one option letter (VLMEvalKit's rules); open outputs are compared with the answer by rules, "
             "then a judge. An item without a prediction counts as wrong."),
    file_types=("JSON Lines (.jsonl), plan-pred/1", "a VLMEvalKit result sheet (.xlsx or .tsv) with the columns "
                "index and prediction; told apart by content, whatever the file's name"),
    fields=(("id", "the item's id (a sheet's index column)"),
            ("prediction", "the model's output as text (a sheet's prediction column)")),
    example_lines=(("single-choice item", '{"id": "pc-0012", "prediction": "B"}'),
                   ("open item", '{"id": "pc-0040", "prediction": "There are 3 mugs."}')),
    notes=("The questions file of a split has the item ids, questions, options and image names; a VLMEvalKit input "
           "sheet (no prediction column) is not a result sheet.",),
    example_record="scoring.benchmarks.plan.core.readers:example_prediction",
    example_outcome=("it passes the format check; answers the rules decide are scored at once, and the rest wait "
                     "for the judge (or, without one, for people): until then the upload is \"Awaiting judgement\" "
                     "with a provisional score and the count of open items, not \"Scored\""),
    line_keys=("id", "index", "prediction"),
    line_signatures=(("id", "prediction"),),
    prompts="scoring.benchmarks.plan.services.judge:format_prompts",
)

PROTOCOL = ScoringProtocol(
    text=("Each answer is judged by a cascade: the rule judge decides what rules settle for sure, then the LLM "
          "judge when one is configured, then people (reviewers and curators). A score is final only when no item "
          "awaits judgement."),
    docs="docs/plan-scoring.md",
    in_use="scoring.benchmarks.plan.services.judge:protocol_in_use",
)

PLUGIN = BenchmarkPlugin(
    slug=SLUG,
    title="PLAN-Bench",
    scorer="scoring.benchmarks.plan.scorer:score",
    scorer_version="scoring.benchmarks.plan.scorer:current_scorer_version",
    precheck="scoring.benchmarks.plan.scorer:precheck",
    sniff="scoring.benchmarks.plan.scorer:sniff",
    board=board(),
    published=PublishedTable(
        SLUG, "plan_bench.csv", "overall", tuple(DIMENSION_KEYS.values()),
        figures_filename="plan_bench_figures.csv", figure_columns=(*SUBTASKS, "single_choice", "open"),
        deltas_filename="plan_bench_deltas.csv",
    ),
    cli="scoring.benchmarks.plan.core.cli",
    cli_help="PLAN-Bench: score predictions against items",
    urls="scoring.benchmarks.plan.urls",
    url_prefix="plan/",
    demo_command="make_demo_plan",
    analyses="scoring.benchmarks.plan.core.analysis:figures",
    analysis_truth_keys=("answer_hint",),
    analysis_truth_figures=("groups",),
    analysis_context="scoring.benchmarks.plan.selectors:plan_analysis_context",
    analysis_summaries="scoring.benchmarks.plan.core.analysis:SUMMARIES",
    format=FORMAT,
    hidden_split_detail_keys=HIDDEN_SPLIT_DETAIL_KEYS,
    upload_hint="<code>plan-pred/1</code> JSONL or a VLMEvalKit sheet",
    public_media=PublicMedia(folder=SLUG, hidden_copy="scoring.benchmarks.plan.services.importing:hidden_copy",
                             references="scoring.benchmarks.plan.selectors:judgement_queue_images",
                             references_name="the open PLAN judgements", references_action="decide them"),
    submission_pages=(("Verdicts and who decided them", "plan-verdicts"),),
    django_app="scoring.benchmarks.plan.apps.PlanBenchConfig",
    headline_key="overall",
    board_extras=BoardExtras(context="scoring.benchmarks.plan.board:board_extras",
                             template="benchmarks/plan/board_extras.html"),
    drilldown=Drilldown(question_label="Question", question_keys=("question",),
                        sample="scoring.benchmarks.plan.board:sample_view", template="benchmarks/plan/sample.html"),
    sample_details="scoring.benchmarks.plan.core.details:PlanSampleDetails",
    protocol=PROTOCOL,
    provenance_options="scoring.benchmarks.plan.services.judge:provenance_options",
    runner="scoring.benchmarks.plan.core.run:PROTOCOL",
    standin="scoring.benchmarks.plan.core.run:standin",
)
