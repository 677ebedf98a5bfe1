"""VGE devices and tasks as stored, and played episodes persisted step by step."""
import json

from django import forms
from django.conf import settings
from django.db import models

from scoring.benchmarks.vge.core.episode_options import DEFAULT_INSTRUCTION, history_text
from scoring.benchmarks.vge.core.rephrase import STYLES as INSTRUCTION_STYLES
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA


class OrderedJSONField(models.TextField):
    """JSON stored as its text, so an object's keys come back in the order they were written on every database.

    A device's views and components are drawn and listed in their authored order; PostgreSQL's jsonb (what
    JSONField uses there) sorts object keys, which made the same device list its views in another order, and draw
    its components in another order, than on SQLite."""

    def from_db_value(self, value, expression, connection):
        return None if value is None else json.loads(value)

    def to_python(self, value):
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value):
        return None if value is None else json.dumps(value, ensure_ascii=False)

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))

    def formfield(self, **kwargs):
        return forms.JSONField(**kwargs)


class Device(models.Model):
    """One `vge-device/1` definition (a UCSM pruned to a device), validated by scoring.benchmarks.vge.core on the way in."""

    device_id = models.CharField(max_length=200, unique=True)
    category = models.CharField(max_length=100, db_index=True)
    definition = OrderedJSONField()
    digest = models.CharField(max_length=64, help_text="sha256 of the canonical definition; keys render caches.")
    source = models.CharField(max_length=20, default="demo", help_text="demo (generated here) or import.")
    images_dir = models.CharField(
        max_length=300, blank=True, help_text="Folder under MEDIA_ROOT holding the view images, when it has any."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["category", "device_id"]

    def __str__(self) -> str:
        return self.device_id


class Task(models.Model):
    task_id = models.CharField(max_length=250, unique=True)
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="tasks")
    definition = models.JSONField(help_text="The vge-task/1 record.")
    sample = models.ForeignKey(
        "scoring.Sample", null=True, blank=True, on_delete=models.SET_NULL, related_name="vge_tasks"
    )
    baseline_rank = models.PositiveIntegerField(
        null=True, blank=True, db_index=True,
        help_text="Position in the human baseline set (empty: not in it). Set by simulator.services.baseline_mark.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task_id"]

    def __str__(self) -> str:
        return self.task_id

    @property
    def goals_count(self) -> int:
        return len(self.definition.get("goals", []))


class Episode(models.Model):
    class Kind(models.TextChoices):
        HUMAN = "human", "Human (browser)"
        AGENT = "agent", "Agent (API)"
        REPLAY = "replay", "Replay"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="vge_episodes"
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="episodes")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.AGENT)
    state = models.JSONField(help_text="scoring.benchmarks.vge.core.engine.EpisodeState.as_dict() after the last step.")
    finished = models.BooleanField(default=False)
    success = models.BooleanField(default=False)
    gave_up = models.BooleanField(
        default=False, help_text="The player ended it with 'Give up': finished, scored as played up to that turn."
    )
    metrics = models.JSONField(default=dict, blank=True, help_text="Per-episode metrics once finished.")
    perturbation = models.CharField(
        max_length=40, blank=True, default="",
        help_text="Image perturbation of every served view (blur:σ, jpeg:q, occlude:share); empty: none.",
    )
    lam = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="The interaction budget λ the episode is played with (1..10); empty: the task's own (5 by default).",
    )
    history = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="How many past turns the agent API shows of the episode while it runs (0..1000); empty: all.",
    )
    instruction = models.CharField(
        max_length=20, choices=[(s, s) for s in INSTRUCTION_STYLES], default=DEFAULT_INSTRUCTION,
        help_text="How its goals are worded: original, or rephrased in a second style (core/rephrase.py).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "kind", "finished"])]

    def __str__(self) -> str:
        return f"episode {self.pk} on {self.task_id}"

    @property
    def played_lambda(self) -> float:
        """The λ the episode is played with: its own, else its task's."""
        return self.lam if self.lam is not None else self.task.definition.get("lambda", DEFAULT_LAMBDA)

    @property
    def history_shown(self) -> str:
        """"full", or the number of past turns the agent is shown."""
        return history_text(self.history)


# The filter of episodes played with every option at its default (the task's own λ, ...): what the human baseline
# counts; an episode with another option is free play on the same task.
BASELINE_OPTIONS: dict[str, object] = {"lam__isnull": True, "perturbation": "", "history__isnull": True,
                                       "instruction": DEFAULT_INSTRUCTION}


class Step(models.Model):
    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField(help_text="1-based turn number.")
    raw_output = models.TextField()
    parsed_action = models.JSONField(null=True, blank=True)
    outcome = models.JSONField(help_text="scoring.benchmarks.vge.core.engine.StepOutcome.as_dict().")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["episode", "index"]
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="unique_vge_step_index")]

    def __str__(self) -> str:
        return f"{self.episode_id}#{self.index}"


class PlayerChoice(models.Model):
    """A player's choices about what others see of them. `name_on_replays`: whether the replays of their human
    episodes show their user name to everyone; by default (and without a row) only they and curators see it, others
    see "a player" (issue 32: replays of a named player's episodes were open to anonymous visitors)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="vge_player_choice")
    name_on_replays = models.BooleanField(
        default=False, help_text="Show my user name on the replays of my episodes to everyone (else: a player).")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"choices of user {self.user_id}"
