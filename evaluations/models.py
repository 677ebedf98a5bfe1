"""Evaluation runs: the hub asks a model's OpenAI-compatible endpoint a benchmark's protocol (scoring.core.runner)
and submits the answers as an ordinary submission (source hub-run)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from scoring.models import Split, Submission


class EvaluationRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        PAUSED = "paused", "Paused"
        CANCELLED = "cancelled", "Cancelled"
        SUBMITTED = "submitted", "Submitted for scoring"
        FAILED = "failed", "Failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluation_runs")
    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="evaluation_runs")
    model_name = models.CharField(max_length=200, help_text="The model name the endpoint serves (sent as `model`).")
    entry_name = models.CharField(max_length=200, help_text="The board's model entry the rows go to.")
    base_url = models.URLField(max_length=500, help_text="The OpenAI-compatible endpoint, e.g. https://host/v1")
    # The API key, sealed with the site's key (evaluations.secrets) for the run's life only: emptied when the run
    # ends (submitted, cancelled, failed). Never shown, logged or exported.
    api_key_sealed = models.TextField(blank=True, editable=False)
    options = models.JSONField(default=dict, blank=True, help_text="The protocol's options, checked.")
    k = models.PositiveSmallIntegerField(default=1)
    seed = models.IntegerField(default=0)
    temperature = models.FloatField(default=0.0)
    max_tokens = models.PositiveIntegerField(null=True, blank=True)
    concurrency = models.PositiveSmallIntegerField(default=4, help_text="Requests open at once on the endpoint.")
    rate_per_minute = models.PositiveIntegerField(null=True, blank=True, help_text="Requests per minute at most.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error_message = models.TextField(blank=True)
    units_total = models.PositiveIntegerField(default=0)
    units_done = models.PositiveIntegerField(default=0)
    requests = models.PositiveIntegerField(default=0, help_text="Answered requests (retries not counted).")
    attempts = models.PositiveIntegerField(default=0, help_text="HTTP requests sent, retries included.")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    model_seconds = models.FloatField(default=0.0, help_text="Time waiting for the endpoint, summed over requests.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="The executing worker's last sign of life.")
    submissions = models.ManyToManyField(Submission, blank=True, related_name="evaluation_runs")
    partial_file = models.TextField(blank=True, help_text="What a cancelled run had: the lines of its finished units.")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"run #{self.pk}: {self.model_name} on {self.split}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class RunAnswer(models.Model):
    """One answered request of a run, stored once: a resumed run replays it instead of asking again."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="answers")
    key = models.CharField(max_length=320)  # "r<repeat>/<sample key>#<turn>" (a sample key is up to 300)
    content = models.TextField()
    usage = models.JSONField(default=dict, blank=True)
    seconds = models.FloatField(default=0.0)
    attempts = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="run_answer_once")]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.key}"


class RunLine(models.Model):
    """One finished unit (a sample or an episode of one repeat): its line of the upload file."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="lines")
    unit = models.CharField(max_length=310)  # "r<repeat>/<sample key>"
    repeat = models.PositiveSmallIntegerField()
    position = models.PositiveIntegerField()
    line = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "unit"], name="run_line_once")]
        ordering = ["repeat", "position"]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.unit}"


class RunChunk(models.Model):
    """A few units of a run (the runner's units, in the run's order): one Celery task plays them, and any worker may.
    Claimed by a conditional update (pending, or running with a stale heartbeat: a killed worker's), so one worker
    plays a chunk at a time; done once every unit has its line."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    units = models.JSONField(help_text="The unit keys, r<repeat>/<sample key>.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    holder = models.CharField(max_length=32, blank=True, help_text="The playing attempt's token.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="run_chunk_once")]

    def __str__(self) -> str:
        return f"{self.run_id}:chunk {self.index}"


class Endpoint(models.Model):
    """A model endpoint as every run on it shares it: its host and model name. Its requests in flight are bounded
    by its slots (`EndpointSlot`), its pace by `next_request_at`; a curator may cap both here for every run."""

    key = models.CharField(max_length=460, unique=True, help_text="host[:port] and the model name.")
    concurrency = models.PositiveSmallIntegerField(null=True, blank=True,
                                                   help_text="Requests open at once over all runs; empty: each run's.")
    rate_per_minute = models.PositiveIntegerField(null=True, blank=True,
                                                  help_text="Requests a minute over all runs; empty: each run's.")
    next_request_at = models.DateTimeField(null=True, blank=True, help_text="When the rate lets the next one go.")

    def __str__(self) -> str:
        return self.key


class EndpointSlot(models.Model):
    """One request open on an endpoint: leased (a conditional update) for the request's life, freed after it;
    a lease past `leased_until` (its worker died) is free again."""

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="slots")
    number = models.PositiveSmallIntegerField()
    holder = models.CharField(max_length=40, blank=True)
    leased_until = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["endpoint", "number"], name="endpoint_slot_once")]

    def __str__(self) -> str:
        return f"{self.endpoint_id}:{self.number}"
