"""Explicit input and output serializers of the VGE agent API."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from scoring.benchmarks.vge.core import perturb
from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_FULL,
    HISTORY_MAX,
    episode_history,
    history_text,
)
from scoring.benchmarks.vge.core.grammar import ACTIONS, COORD_RANGE, FEEDBACK_KINDS, params_text
from scoring.benchmarks.vge.core.rephrase import STYLES as INSTRUCTION_STYLES
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA, LAMBDA_MAX, LAMBDA_MIN, LAMBDA_OPTION


def perturbation_checked(value: str) -> str:
    """An episode option `perturbation` in its canonical text ("" for none), or the parser's message as a field error."""
    try:
        found = perturb.parse(value)
    except perturb.PerturbationInvalid as exc:
        raise serializers.ValidationError(str(exc)) from None
    return found.text() if found else ""


def lambda_field(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(required=False, allow_null=True, default=None, min_value=LAMBDA_MIN,
                                    max_value=LAMBDA_MAX, help_text=help_text)


class WithLambda(serializers.Serializer):
    """A serializer with the field `lambda` (a Python keyword, so it is added here rather than declared)."""

    lambda_help = ""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields[LAMBDA_OPTION] = lambda_field(self.lambda_help)
        return fields


def history_checked(value: str) -> str:
    """An episode option `history` as text ("full" or a number of past turns), or the reason as a field error."""
    try:
        return history_text(episode_history(value))
    except ValueError as exc:
        raise serializers.ValidationError(str(exc)) from None


class WithAgentOptions(WithLambda):
    """The agent API's episode options besides λ: `history` and `instruction` (and `perturbation`)."""

    history = serializers.CharField(
        required=False, default=HISTORY_FULL, max_length=8,
        help_text=f"how many past turns `GET /api/vge/episodes/<id>/` shows in the trace while the episode runs: "
                  f"a whole number 0..{HISTORY_MAX} (a number or its text) or \"{HISTORY_FULL}\" (default)")
    instruction = serializers.ChoiceField(
        choices=INSTRUCTION_STYLES, required=False, default=DEFAULT_INSTRUCTION,
        help_text="how the goals are worded: original (the task's) or rephrased (a second style, the same for "
                  "every episode of the task)")

    def validate_history(self, value: str) -> str:
        return history_checked(value)


TASK_ID_MAX = 250  # characters of a task id in a start request


class EpisodeCreateInput(WithAgentOptions):
    """A new episode of a task, with its episode options."""

    task = serializers.CharField(min_length=1, max_length=TASK_ID_MAX,
                                 help_text="The task's id, as `GET /api/vge/tasks/` lists it (e.g. microwave-0007/t3).")
    perturbation = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                         help_text="blur:σ, jpeg:q or occlude:share applied to every served view")
    lambda_help = (f"the interaction budget λ of the episode, a whole number {LAMBDA_MIN}..{LAMBDA_MAX}: global budget "
                   f"λ·L_opt, local λ·C_opt (default: the task's own, {DEFAULT_LAMBDA} unless the task sets one)")

    def validate_perturbation(self, value: str) -> str:
        return perturbation_checked(value)


_start_defaults: list[dict[str, Any]] = []


def plain_start_input(data: Any) -> dict[str, Any] | None:
    """The hot path of a harness's reset: a start body naming its task and nothing else, as text EpisodeCreateInput
    takes as it is (1..TASK_ID_MAX characters, nothing to trim, no NUL character, no lone surrogate); its validated
    data, the options' defaults being EpisodeCreateInput's own (validated once per process). Building the
    serializer's fields cost every start ~80 us, four engine steps. None: let EpisodeCreateInput check it or word the
    error."""
    if type(data) is not dict or len(data) != 1:  # a form's QueryDict: the serializer reads it its own way
        return None
    task = data.get("task")
    if not isinstance(task, str) or not 0 < len(task) <= TASK_ID_MAX or task != task.strip() or "\x00" in task:
        return None
    try:
        task.encode("utf-8")  # a lone surrogate ("\ud800" in JSON) cannot be stored
    except UnicodeEncodeError:
        return None
    if not _start_defaults:
        defaults = EpisodeCreateInput(data={"task": "stand-in"})
        defaults.is_valid(raise_exception=True)
        _start_defaults.append({k: v for k, v in defaults.validated_data.items() if k != "task"})
    return {"task": task, **_start_defaults[0]}


ACT_OUTPUT_MAX = 20000  # characters of one model output


def plain_act_output(data: Any) -> str | None:
    """The hot path of every harness: an act body whose `output` is text ActInput would take as it is (a string
    within the limit, no NUL character, no lone surrogate). None: let ActInput coerce it or word the error."""
    output = data.get("output") if isinstance(data, Mapping) else None
    if not isinstance(output, str) or len(output) > ACT_OUTPUT_MAX or "\x00" in output:
        return None
    try:
        output.encode("utf-8")  # a lone surrogate ("\ud800" in JSON) cannot be stored
    except UnicodeEncodeError:
        return None
    return output


def output_help() -> str:
    """The `output` field's description: the action grammar, each action's coord and params (grammar.ACTIONS)."""
    actions = "; ".join(f"{spec.signature()} (coord {spec.coord}; params: {params_text(spec)})" for spec in ACTIONS)
    return (f"The model's text for this turn, at most {ACT_OUTPUT_MAX} characters, free text allowed around the action. "
            "The action is the last call of the seven names on the last line containing `Action:` (any case), else "
            f"the last call anywhere: {actions}. Coordinates are whole numbers {COORD_RANGE[0]}..{COORD_RANGE[1]} of "
            "the current view's image, origin top-left. A text without an action is an invalid turn (it still costs "
            "one from each budget).")


class ActInput(serializers.Serializer):
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=ACT_OUTPUT_MAX,
                                   help_text=output_help())


class ObservationOutput(serializers.Serializer):
    """What the agent sees now; never a state's or a component's name."""

    episode = serializers.IntegerField(help_text="The episode's id: the {id} of the act, detail and view calls.")
    turn = serializers.IntegerField(help_text="Turns played so far (0 at the start).")
    view = serializers.CharField(help_text="The view the agent is looking at (front, left, front_top, dashboard, ...).")
    image_url = serializers.CharField(help_text="Where the current view's PNG is: GET it with the same token. Actions' "
                                                "coordinates are on this image, 0..1000 on both axes.")
    accessible_views = serializers.ListField(child=serializers.CharField(),
                                             help_text="The views Switch_view(params=[view]) may go to now (the "
                                                       "dashboard only once it is unlocked).")
    instruction = serializers.CharField(allow_null=True, help_text="The current goal's instruction; the next one is "
                                                                   "shown once this goal is reached (null when all are).")
    goal_index = serializers.IntegerField(help_text="The current goal, from 0 (equal to goals_total once all are reached).")
    goals_total = serializers.IntegerField(help_text="How many goals the task has, reached in order.")
    budgets = serializers.DictField(help_text="Turns left: `global` (λ·L_opt for the whole episode) and `local` "
                                              "(λ·C_opt for the current goal); the episode ends when either is 0.")
    budgets_max = serializers.DictField(required=False, help_text="Each budget's full length (for progress bars).")
    done = serializers.BooleanField(help_text="The episode is over: all goals reached or a budget spent.")
    success = serializers.BooleanField(help_text="All goals were reached.")


class FeedbackOutput(serializers.Serializer):
    """The device's answer to the turn."""

    kind = serializers.ChoiceField(choices=FEEDBACK_KINDS, help_text="What the turn did (each kind's meaning below).")
    text = serializers.CharField(required=False, help_text=(
        "What the device says, as a sentence (a player's page shows the same); left out when it says nothing. "
        "No effect is \"Nothing happened.\" (the paper's engine answers the literal null; the stored trace keeps it)."))
    action = serializers.CharField(allow_null=True, help_text="The action as the engine read it, in canonical form "
                                                              "(null: no action could be read).")
    goal_reached = serializers.BooleanField(help_text="This turn reached the current goal (the next instruction is "
                                                      "in the observation).")


class ActOutput(serializers.Serializer):
    feedback = FeedbackOutput()
    observation = ObservationOutput(help_text="What the agent sees after the turn.")
    done = serializers.BooleanField(help_text="The episode is over (the same as observation.done).")


ACT_BATCH_MAX = 100  # actions in one batch request


class BatchActionInput(serializers.Serializer):
    episode = serializers.IntegerField(min_value=1, help_text="One of your running episodes.")
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=ACT_OUTPUT_MAX,
                                   help_text="The model's text for this episode's turn, as for the one-action call.")


class ActBatchInput(serializers.Serializer):
    actions = BatchActionInput(many=True, allow_empty=False, max_length=ACT_BATCH_MAX,
                               help_text=f"One action per episode, at most {ACT_BATCH_MAX}.")


class ActBatchResultOutput(serializers.Serializer):
    episode = serializers.IntegerField()
    status = serializers.IntegerField(help_text="The status the one-action call would have answered.")
    detail = serializers.CharField(required=False, help_text="Why the action was refused (status >= 400).")
    feedback = FeedbackOutput(required=False)
    observation = ObservationOutput(required=False)
    done = serializers.BooleanField(required=False)


class ActBatchOutput(serializers.Serializer):
    results = ActBatchResultOutput(many=True, help_text="In the order of the actions.")


class EpisodeStartOutput(ObservationOutput):
    """A new episode: its id and first observation, the observation's fields also at the top level."""

    observation = ObservationOutput(help_text="The first observation (its fields are repeated at the top level).")


class EpisodeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.CharField()
    kind = serializers.CharField(help_text="agent (this API), human (the browser) or replay.")
    finished = serializers.BooleanField()
    success = serializers.BooleanField()
    metrics = serializers.DictField(help_text="Once it is over: SR, SSR, SPL, State-F1, EIR, TIR, VSPS, EER, turns, "
                                              "goals_reached (and l_opt where the split's ground truth is public); "
                                              "{} while it runs.")
    perturbation = serializers.CharField(allow_blank=True)
    history = serializers.CharField(help_text="\"full\" or the number of past turns the trace shows while it runs")
    instruction = serializers.ChoiceField(choices=INSTRUCTION_STYLES)
    observation = ObservationOutput()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields[LAMBDA_OPTION] = serializers.FloatField(
            required=False, help_text="the interaction budget λ the episode is played with (its own, else its task's; "
                                      "left out for a task of a hidden split played with the task's own)")
        return fields
    trace = serializers.ListField(child=serializers.DictField(), help_text=(
        "The turns played, in order: turn, raw_output, action_text, kind, feedback (a sentence, left out when the "
        "device said nothing), views before and after, budgets left, goal_reached. While it runs (and on a hidden "
        "split) without state names, and only the last `history` turns; once over on a public split, whole."))


class BundleInput(WithAgentOptions):
    """Bundle the caller's finished agent episodes played with one set of episode options into a submission."""

    model = serializers.CharField(min_length=1, max_length=200)
    split = serializers.CharField(max_length=50, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    perturbation = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                         help_text="bundle the episodes played with this perturbation (default none)")
    lambda_help = ("bundle the episodes played with this interaction budget λ and replay them with it (the "
                   "submission's option `lambda`); default: those played with their task's own λ")

    def validate_perturbation(self, value: str) -> str:
        return perturbation_checked(value)


class BundleOutput(serializers.Serializer):
    submission = serializers.IntegerField(help_text="The new submission's id.")
    status = serializers.CharField(help_text="Its state (queued, then running and scored or failed).")
    url = serializers.CharField(help_text="Where to follow it: GET with the same token.")


# -- the task list ------------------------------------------------------------------------------------------------
TASKS_PAGE_SIZE = 50
TASKS_PAGE_MAX = 200


class TaskListQuery(serializers.Serializer):
    split = serializers.CharField(required=False, allow_blank=True, max_length=50,
                                  help_text="Only tasks of this VGE split (any version; `none`: tasks of no split, "
                                            "as the practice task).")
    category = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                     help_text="Only devices of this category (any case), e.g. Microwave.")
    device = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="Only this device.")
    page = serializers.IntegerField(required=False, min_value=1, help_text="Page number, from 1.")
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=TASKS_PAGE_MAX,
                                         help_text=f"Tasks per page (default {TASKS_PAGE_SIZE}, at most "
                                                   f"{TASKS_PAGE_MAX}).")


class TaskSplitOutput(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.IntegerField()
    hidden_ground_truth = serializers.BooleanField(help_text="Goals, optimal costs and λ are not shown (but to "
                                                             "curators); episodes are played all the same.")


class TaskOutput(serializers.Serializer):
    id = serializers.CharField(help_text="The task's id: `task` of POST /api/vge/episodes/.")
    device = serializers.CharField()
    category = serializers.CharField(help_text="The device's category.")
    split = TaskSplitOutput(allow_null=True, help_text="The split the task belongs to (null: none, as the practice task).")
    instruction = serializers.CharField(allow_blank=True,
                                        help_text="The first goal's instruction, as an episode starts with it.")
    start_view = serializers.CharField(allow_blank=True, help_text="The view an episode starts on.")
    goals = serializers.IntegerField(allow_null=True, help_text="How many goals (null on a hidden split).")
    shortest = serializers.IntegerField(allow_null=True, help_text="The fewest turns that reach every goal, L_opt "
                                                                   "(null on a hidden split).")
    play_url = serializers.CharField(help_text="Where a person plays it in the browser.")

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields[LAMBDA_OPTION] = serializers.FloatField(allow_null=True, help_text=(
            "The task's interaction budget λ (null on a hidden split: with the budgets it would give L_opt away)."))
        return fields


class TaskPageOutput(serializers.Serializer):
    count = serializers.IntegerField(help_text="Tasks matching the filters, on all pages.")
    next = serializers.CharField(allow_null=True, help_text="The next page's URL (null on the last page).")
    previous = serializers.CharField(allow_null=True, help_text="The previous page's URL (null on the first).")
    results = TaskOutput(many=True)
