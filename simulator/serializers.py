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


class EpisodeCreateInput(WithAgentOptions):
    """A new episode of a task, with its episode options."""

    task = serializers.CharField(min_length=1, max_length=250)
    perturbation = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                         help_text="blur:σ, jpeg:q or occlude:share applied to every served view")
    lambda_help = (f"the interaction budget λ of the episode, a whole number {LAMBDA_MIN}..{LAMBDA_MAX}: global budget "
                   f"λ·L_opt, local λ·C_opt (default: the task's own, {DEFAULT_LAMBDA} unless the task sets one)")

    def validate_perturbation(self, value: str) -> str:
        return perturbation_checked(value)


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


class ActInput(serializers.Serializer):
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=ACT_OUTPUT_MAX)


class ObservationOutput(serializers.Serializer):
    episode = serializers.IntegerField()
    turn = serializers.IntegerField()
    view = serializers.CharField()
    image_url = serializers.CharField()
    accessible_views = serializers.ListField(child=serializers.CharField())
    instruction = serializers.CharField(allow_null=True)
    goal_index = serializers.IntegerField()
    goals_total = serializers.IntegerField()
    budgets = serializers.DictField()
    done = serializers.BooleanField()
    success = serializers.BooleanField()


class FeedbackOutput(serializers.Serializer):
    kind = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    action = serializers.CharField(allow_null=True)
    goal_reached = serializers.BooleanField()


class ActOutput(serializers.Serializer):
    feedback = FeedbackOutput()
    observation = ObservationOutput()
    done = serializers.BooleanField()


ACT_BATCH_MAX = 100  # actions in one batch request


class BatchActionInput(serializers.Serializer):
    episode = serializers.IntegerField(min_value=1)
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=ACT_OUTPUT_MAX)


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


class EpisodeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.CharField()
    kind = serializers.CharField()
    finished = serializers.BooleanField()
    success = serializers.BooleanField()
    metrics = serializers.DictField()
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
    trace = serializers.ListField(child=serializers.DictField())


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
    submission = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()
