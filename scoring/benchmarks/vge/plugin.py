"""VGEBench, declared once: the board's columns are the core's metrics; uploads are action logs replayed through
the engine."""
from __future__ import annotations

from scoring.benchmarks.vge.core.grammar import FEEDBACK_KINDS, GRAMMAR_INTRO, grammar_rows
from scoring.benchmarks.vge.core.metrics import METRICS
from scoring.benchmarks.vge.core.quickstart import QUICKSTART, QUICKSTART_INTRO
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA
from scoring.core.columns import BoardSpec, Column, Direction, Level
from scoring.core.plugin import BenchmarkPlugin, Drilldown, FormatGuide, FormatSection, ScoringProtocol
from scoring.core.published import PublishedTable

SLUG = "vge-bench"

# How the board shows each metric of the core: label, title, lower-is-better, shown on demand only.
_SHOWN: dict[str, tuple[str, str, bool, bool]] = {
    "SR": ("SR", "Success rate (all goals of the task reached)", False, False),
    "SSR": ("SSR", "Sub-goal success rate", False, False),
    "SPL": ("SPL", "Success weighted by path length", False, False),
    "State-F1": ("State-F1", "F1 of visited vs required states", False, False),
    "EIR": ("EIR", "Effective interaction rate", False, False),
    "TIR": ("TIR", "Task-relevant interaction rate", False, False),
    "VSPS": ("VSPS", "View switches per sub-goal (per episode)", True, False),
    "GVPE": ("GVPE", "View switches per goal, pooled", True, False),
    "EER": ("EER", "Effective execution rate", False, False),
    "PSR": ("PSR", "Precise success rate", False, True),
    "AvgDist": ("Avg Dist", "Mean click distance to the target (0..1000)", True, True),
    "AvgWDist": ("Avg W-Dist", "Mean weighted click distance (0..1000)", True, True),
}

# Metrics that are no percentage: counts per sub-goal or goal (axis from their values) and click distances on the
# views' 0..1000 grid; the others are percentages (plots put them on one 0-100 axis).
_SCALES: dict[str, float | None] = {"VSPS": None, "GVPE": None, "AvgDist": 1000.0, "AvgWDist": 1000.0}


def board() -> BoardSpec:
    columns = []
    for metric in METRICS:
        label, title, lower_is_better, on_demand = _SHOWN[metric]
        columns.append(Column(
            # SR is VGEBench's headline figure; the board keeps it under the key "overall" like the others.
            "overall" if metric == "SR" else metric,
            label,
            title,
            group="On demand" if on_demand else "",
            direction=Direction.DOWN if lower_is_better else Direction.UP,
            level=Level.EXTRA if on_demand else Level.HEADLINE,
            scale=_SCALES.get(metric, 100.0),
        ))
    return BoardSpec(SLUG, tuple(columns))


# On a hidden split a submitter sees the episode as the agent played it: its line, each turn's output, parsed
# action, feedback and views, and the per-episode metrics. Never the task (goals, start state, lambda), l_opt,
# states or components of the device, optimal costs or budgets (they follow from lambda and the optimal cost).
HIDDEN_SPLIT_DETAIL_KEYS = frozenset({
    "line", "ignored_outputs", "gave_up", "episode",
    "perturbation", "history", "instruction",  # the episode options the submitter played with
    "trace", "turn", "raw_output", "action", "action_text", "turn_class", "kind", "feedback",
    "view_before", "view_after", "done", "success",
    "name", "coord", "params",  # of `action`
    *METRICS, "goals_reached", "turns",  # components
})

FORMAT = FormatGuide(
    summary=("An action log (vge-log/1): one episode per task of the split, its model outputs in turn order. The "
             "scorer replays them through the simulator, which is deterministic, so the replay sees what the model "
             "saw; outputs past the episode's end are ignored. A task without a line is a failed episode."),
    fields=(("task", "the task's id, as in the split's inputs"),
            ("outputs", "the model's text of each turn; the action is the last call on the last line with "
                        "\"Action:\", e.g. Press(coord=[512, 300], params=[0]); coordinates 0-1000 of the view")),
    example_lines=(("one episode",
                    '{"task": "microwave-0007/t3", "outputs": ["Thinking: the round button starts it. '
                    'Action: Press(coord=[730, 180], params=[0])"]}'),),
    example_record="scoring.benchmarks.vge.core.replay:example_episode",
    line_keys=("task", "outputs"),
    line_signatures=(("task", "outputs"),),
    # The agent protocol, from the core's one table (core/grammar.py) and the one quick start (core/quickstart.py),
    # as /api/docs/ shows them.
    sections=(
        FormatSection("actions", "Actions (each output's action)", GRAMMAR_INTRO,
                      ("Action", "coord", "params", "What it does", "Example"),
                      tuple((f"`{signature}`", coord, params, meaning, f"`{example}`")
                            for signature, coord, params, meaning, example in grammar_rows())),
        FormatSection("feedback", "Feedback after each turn",
                      "The agent API answers each turn with `feedback`: its `kind`, and a `text` that is a sentence "
                      "(left out when the device says nothing).", ("kind", "Meaning"),
                      tuple((f"`{kind}`", meaning) for kind, meaning in FEEDBACK_KINDS)),
        FormatSection("quickstart", "Play episodes from a script (agent API)", QUICKSTART_INTRO, code=QUICKSTART),
    ),
)

PROTOCOL = ScoringProtocol(
    text=("Episodes as the engine plays them: after each action the model gets the device's text feedback and the "
          "next view. Budgets: global λ·L_opt, local λ·C_opt of the next goal, with the interaction budget "
          f"λ = {DEFAULT_LAMBDA} unless a task sets its own. Views are unperturbed, the agent sees its whole history "
          "and the task's instructions unless an agent's episodes ask for another λ, a perturbation, a shorter "
          "history or rephrased instructions; a submission of such episodes records them."),
    docs="docs/vge-engine.md",
)

PLUGIN = BenchmarkPlugin(
    slug=SLUG,
    title="VGEBench",
    scorer="scoring.benchmarks.vge.scorer:score",
    scorer_version="scoring.benchmarks.vge.scorer:VERSION",
    precheck="scoring.benchmarks.vge.scorer:precheck",
    board=board(),
    published=PublishedTable(SLUG, "vge_bench.csv", "SR", METRICS),
    cli="scoring.benchmarks.vge.core.cli",
    cli_help="VGEBench: replay action logs through the engine",
    demo_command="make_demo_vge",
    analyses="scoring.benchmarks.vge.core.analysis:figures",
    analysis_truth_figures=("goals", "budget", "errors", "view-switches"),  # errors: judged against the optimal plan
    analysis_context="scoring.benchmarks.vge.selectors:vge_analysis_context",
    analysis_context_of_rows=True,  # every upload on the board with its entry and its options (fixed at upload)
    analysis_summaries="scoring.benchmarks.vge.core.analysis:SUMMARIES",
    analysis_summary_context="scoring.benchmarks.vge.selectors:vge_analysis_summary_context",
    analysis_summary_stamp="scoring.benchmarks.vge.selectors:vge_analysis_summary_stamp",
    format=FORMAT,
    hidden_split_detail_keys=HIDDEN_SPLIT_DETAIL_KEYS,
    upload_hint="<code>vge-log/1</code> JSONL",
    headline_key="SR",  # the scorer's intervals name it by its metric; the board shows it as "overall"
    drilldown=Drilldown(question_label="Instruction", question_keys=("instruction",),
                        template="benchmarks/vge/sample.html"),
    protocol=PROTOCOL,
    provenance_options="scoring.benchmarks.vge.scorer:provenance_options",
    runner="scoring.benchmarks.vge.core.run:PROTOCOL",
    standin="scoring.benchmarks.vge.core.run:standin",
)
