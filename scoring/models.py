"""Benchmarks, their splits and samples, model entries, submissions and their scores."""
import re
from pathlib import PurePath

from django.conf import settings
from django.db import models
from django.utils import timezone

from scoring.core.states import AWAITING, AWAITING_LABEL, Provisional, provisional_of


class Benchmark(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    version = models.CharField(max_length=20, default="1.0")
    scorer = models.CharField(max_length=50, help_text="Name of the registered scorer for this benchmark.")
    paper_url = models.URLField(blank=True)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name


class Phase(models.Model):
    """A stage of a benchmark's challenge, as on EvalAI and Codabench (a development phase on public ground truth,
    a test phase on hidden ground truth): its splits take uploads between its dates (UTC), within its quotas per
    user, and its results are shown at once or only once it closes. A split in no phase is always open, without
    quota (`scoring.phases`, `scoring.quota`)."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="phases")
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=50)
    description = models.TextField(blank=True)
    opens_at = models.DateTimeField(default=timezone.now, help_text="Uploads are taken from this moment (UTC).")
    closes_at = models.DateTimeField(
        null=True, blank=True, help_text="Uploads are refused from this moment (UTC); empty: open with no end.")
    daily_quota = models.PositiveIntegerField(
        null=True, blank=True, help_text="Uploads per user per UTC day, over all the phase's splits; empty: unlimited.")
    total_quota = models.PositiveIntegerField(
        null=True, blank=True, help_text="Uploads per user over the whole phase; empty: unlimited.")
    results_at_close = models.BooleanField(
        default=False, help_text="Boards show others' results only once the phase has closed (each submitter sees "
                                 "their own on the submission page at once).")
    private_allowed = models.BooleanField(
        default=True, help_text="Whether an upload may be private (scored, seen by its owner only).")
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["benchmark", "order", "opens_at"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "slug"], name="unique_phase_slug"),
            models.CheckConstraint(condition=models.Q(closes_at__isnull=True) | models.Q(closes_at__gt=models.F("opens_at")),
                                   name="phase_closes_after_it_opens"),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark.name}: {self.name}"

    def has_opened(self, now=None) -> bool:
        return (now or timezone.now()) >= self.opens_at

    def has_closed(self, now=None) -> bool:
        return self.closes_at is not None and (now or timezone.now()) >= self.closes_at

    def is_open(self, now=None) -> bool:
        now = now or timezone.now()
        return self.has_opened(now) and not self.has_closed(now)

    def results_waiting(self, now=None) -> bool:
        """Whether others' results are held back from the boards now (results at close, not closed yet)."""
        return self.results_at_close and not self.has_closed(now)


class Split(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="splits")
    name = models.SlugField(max_length=50)
    version = models.PositiveIntegerField(default=1)
    description = models.TextField(blank=True)
    hidden_ground_truth = models.BooleanField(
        default=True, help_text="Ground truth is never shown or served to anyone but curators."
    )
    is_default = models.BooleanField(default=False)
    phase = models.ForeignKey(
        Phase, null=True, blank=True, on_delete=models.SET_NULL, related_name="splits",
        help_text="The phase whose dates and quotas apply to uploads here; none: always open, no quota.")
    ground_truth_sha256 = models.CharField(
        max_length=64, blank=True,
        help_text="A hash over the samples' keys and ground truth (scoring.core.provenance), computed once for this "
                  "version when a score first needs it; a new version of the split gets its own.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["benchmark", "name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "name", "version"], name="unique_split_version"),
        ]

    def __str__(self) -> str:
        suffix = f" v{self.version}" if self.version != 1 else ""
        return f"{self.benchmark.slug}/{self.name}{suffix}"


class Sample(models.Model):
    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="samples")
    key = models.CharField(max_length=300, help_text="Stable identifier that predictions refer to.")
    position = models.PositiveIntegerField(default=0)
    category = models.CharField(max_length=100, blank=True)
    group = models.CharField(max_length=100, blank=True)
    task = models.CharField(max_length=100, blank=True, help_text="Leaf task or subtask.")
    inputs = models.JSONField(default=dict, blank=True, help_text="What the model is shown.")
    ground_truth = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["split", "position", "key"]
        constraints = [models.UniqueConstraint(fields=["split", "key"], name="unique_sample_key")]
        indexes = [models.Index(fields=["split", "task"])]

    def __str__(self) -> str:
        return self.key


class ModelEntry(models.Model):
    class Kind(models.TextChoices):
        PROPRIETARY = "proprietary", "Proprietary"
        OPEN_SOURCE = "open-source", "Open-source"
        EMBODIED = "embodied", "Embodied"
        HUMAN = "human", "Human"
        BASELINE = "baseline", "Baseline"
        UNSTATED = "", "Not stated"

    class Thinking(models.TextChoices):
        YES = "yes", "Thinking"
        NO = "no", "Non-thinking"
        UNKNOWN = "", "Not stated"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=220, unique=True)
    organisation = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OPEN_SOURCE, blank=True,
                            help_text="An upload's new entry is what its owner chose, or not stated.")
    thinking = models.CharField(max_length=3, choices=Thinking.choices, default=Thinking.UNKNOWN, blank=True)
    thinking_budget = models.CharField(max_length=50, blank=True)
    parameters_b = models.FloatField(null=True, blank=True, help_text="Parameters, in billions.")
    input_resolution = models.CharField(max_length=100, blank=True)
    open_weights = models.BooleanField(null=True, blank=True)
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    model_url = models.URLField(blank=True, help_text="Model card or weights.")
    description = models.TextField(blank=True)
    fact_sources = models.JSONField(
        default=dict, blank=True,
        help_text="Where each fact filled from the papers' data is stated: field name -> source. An owner's edit "
                  "of a field drops its source.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="model_entries"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "thinking"]
        constraints = [models.UniqueConstraint(fields=["name", "thinking"], name="unique_model_variant")]
        verbose_name_plural = "model entries"

    def __str__(self) -> str:
        return f"{self.name} (thinking)" if self.thinking == self.Thinking.YES else self.name


def submission_file_path(instance: "Submission", filename: str) -> str:
    """Where an upload is stored: under its content's sha256 (content-addressed), so an identical file is found by
    its name and stored once. The suffix is kept (a reader may tell formats apart by it), lower-cased and short."""
    suffix = PurePath(filename).suffix.lower()
    suffix = suffix if re.fullmatch(r"\.[a-z0-9]{1,10}", suffix) else ""
    sha = instance.sha256 or "unhashed"
    return f"private/submissions/sha256/{sha[:2]}/{sha}{suffix}"


class Submission(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"

    class Source(models.TextChoices):
        """The row type a board shows and filters by: a paper's number, an author's upload scored here (self-
        reported), a score the hub re-derived from artefacts it holds (reproduced), or a model the hub ran itself."""

        UPLOAD = "upload", "Scored here"
        REPORTED = "reported", "Reported in paper"
        REPRODUCED = "reproduced", "Reproduced by the hub"
        HUB_RUN = "hub-run", "Run by the hub"

    model_entry = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="submissions")
    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="submissions")
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="submissions"
    )
    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public: on the boards"
        PRIVATE = "private", "Private: scored, seen by its owner only"
        WITHDRAWN = "withdrawn", "Withdrawn: on no board, kept for its owner's record"

    source = models.CharField(max_length=10, choices=Source.choices, default=Source.UPLOAD)
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC,
                                  help_text="Boards show public submissions only.")
    file = models.FileField(upload_to=submission_file_path, blank=True, max_length=200)
    original_filename = models.CharField(max_length=255, blank=True)
    size_bytes = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    options = models.JSONField(default=dict, blank=True, help_text="Scorer options, e.g. raw responses.")
    note = models.TextField(blank=True)
    run_set = models.CharField(
        max_length=60, blank=True,
        help_text="Repeated runs: submissions of one model entry on one split with the same label are runs of one "
                  "variant; the board shows their mean with the run-to-run spread.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error_message = models.TextField(blank=True)
    error_report = models.JSONField(default=list, blank=True, help_text="[{line, field, message}, ...]")
    failure_is_site_error = models.BooleanField(
        default=False, help_text="The failure was the site's fault, not the file's (it does not use quota)."
    )
    scorer_version = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    overdue_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When the upload was found still queued past QUEUE_STALE_AFTER_MINUTES: the site kept it waiting, "
                  "so the quota it used is given back (scoring.queue_health).")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["split", "status"]), models.Index(fields=["submitter", "created_at"]),
                   models.Index(fields=["sha256"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.model_entry} on {self.split}"

    @property
    def is_final(self) -> bool:
        return self.status in (self.Status.SCORED, self.Status.FAILED)

    class State(models.TextChoices):
        """What a submission is, as its page, its submitter's list, the API's `status` and the board say: its
        status, except that one scored with a score that is not final (scoring.core.states) awaits judgement."""

        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        AWAITING_JUDGEMENT = AWAITING, AWAITING_LABEL
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"

    @property
    def provisional(self) -> Provisional | None:
        """The open items and provisional range of a scored submission whose score is not final, else None."""
        if self.status != self.Status.SCORED:
            return None
        score = getattr(self, "score", None)
        return provisional_of(score.details) if score is not None else None

    @property
    def state(self) -> str:
        return self.State.AWAITING_JUDGEMENT if self.provisional is not None else self.status

    @property
    def state_label(self) -> str:
        return self.State(self.state).label


class WorkerBeat(models.Model):
    """A scoring worker's latest sign of life: each worker process writes its row every WORKER_BEAT_SECONDS
    (scoring.workers) and deletes it when it stops cleanly; a killed worker's row simply stops being fresh."""

    hostname = models.CharField(max_length=200, unique=True)
    queues = models.JSONField(default=list, blank=True, help_text="The broker queues the worker takes jobs from.")
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()

    class Meta:
        ordering = ["hostname"]

    def __str__(self) -> str:
        return f"{self.hostname} (last beat {self.beat_at:%Y-%m-%d %H:%M:%S})"


class UploadQuotaDay(models.Model):
    """One row per user, phase and UTC day with uploads. An upload to a phase with a quota locks this row in
    the transaction that stores it, so parallel uploads are counted one after the other (`scoring.quota`). The count
    itself is of the submissions, so a failure the site caused gives its quota back."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "phase", "day"], name="unique_upload_quota_phase_day")]

    def __str__(self) -> str:
        return f"{self.user_id} in phase {self.phase_id}, {self.day}"


class Score(models.Model):
    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="score")
    overall = models.FloatField(null=True, blank=True, help_text="Headline figure, in percent.")
    breakdown = models.JSONField(default=dict, blank=True, help_text="Column key -> value.")
    intervals = models.JSONField(default=dict, blank=True, help_text="Column key -> [low, high], 95% bootstrap.")
    details = models.JSONField(default=dict, blank=True)
    readings = models.JSONField(
        default=dict, blank=True,
        help_text="Second readings of the same upload (the plugin's `readings`), by key: overall, breakdown, "
                  "intervals, details, tells_more.")
    scorer_version = models.CharField(max_length=200, blank=True)
    provenance = models.JSONField(
        default=dict, blank=True,
        help_text="What the score was made from (scoring.core.provenance.KEYS): the file's sha256, the scorer, "
                  "split and hub versions, the ground truth's hash and the protocol options; empty for a paper's.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(
        auto_now=True, help_text="Last written: a board keeps each row it built while its score's id and this are "
                                 "unchanged (leaderboard.selectors.board_rows_current).")

    def __str__(self) -> str:
        return f"{self.submission}: {self.overall}"


class SampleScore(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="sample_scores")
    sample = models.ForeignKey(Sample, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    index = models.PositiveIntegerField()
    key = models.CharField(max_length=300, blank=True)
    task = models.CharField(max_length=100, blank=True)
    score = models.FloatField(null=True, blank=True)
    outcome = models.CharField(max_length=30, blank=True, help_text="ok, invalid, wrong_count, low_iou, ...")
    invalid = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    components = models.JSONField(default=dict, blank=True)
    details = models.JSONField(default=dict, blank=True)
    readings = models.JSONField(
        default=dict, blank=True,
        help_text="Second readings by key ({score, invalid, outcome}), only where they differ from this row's.")

    class Meta:
        ordering = ["submission", "index"]
        constraints = [models.UniqueConstraint(fields=["submission", "index"], name="unique_sample_score_index")]
        indexes = [models.Index(fields=["submission", "task"]), models.Index(fields=["submission", "outcome"])]

    def __str__(self) -> str:
        return f"{self.submission_id}/{self.index}: {self.score}"


class ChangeRecord(models.Model):
    """One change to a model entry or a submission, by whom and when: the audit of edits and of visibility."""

    class Subject(models.TextChoices):
        MODEL_ENTRY = "model-entry", "Model entry"
        SUBMISSION = "submission", "Submission"

    subject = models.CharField(max_length=20, choices=Subject.choices)
    object_id = models.PositiveBigIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    changes = models.JSONField(default=dict, help_text="field -> [before, after]")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["subject", "object_id", "created_at"])]

    def __str__(self) -> str:
        return f"{self.subject} {self.object_id}: {', '.join(self.changes)}"

    @property
    def ordered_changes(self) -> list[tuple[str, object, object]]:
        """(field, before, after) in one order on every database: "created" first, then the subject's fields as
        the model declares them, then other keys alphabetically. PostgreSQL's jsonb keeps no key order (it sorts
        keys by length), so the order the change was written in is not there to be read back."""
        subject_model = {self.Subject.MODEL_ENTRY: ModelEntry, self.Subject.SUBMISSION: Submission}.get(self.subject)
        declared = [field.name for field in subject_model._meta.get_fields()] if subject_model else []
        rank = {name: position for position, name in enumerate(["created", *declared])}
        keys = sorted(self.changes, key=lambda key: (rank.get(key, len(rank)), key))
        return [(key, *self.changes[key]) for key in keys]


class ScoreVersion(models.Model):
    """A score a re-score replaced (issue 29): the figures as they were, with the scorer and split versions they were
    made under. The current score stays `Score` (what every board reads); these are what the version selector, the
    diff page and a submission's history show. Per-sample rows are kept for the current score only."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="score_versions")
    overall = models.FloatField(null=True, blank=True)
    breakdown = models.JSONField(default=dict, blank=True)
    intervals = models.JSONField(default=dict, blank=True)
    details = models.JSONField(default=dict, blank=True)
    readings = models.JSONField(default=dict, blank=True)
    scorer_version = models.CharField(max_length=200, blank=True)
    split_version = models.PositiveIntegerField(default=1, help_text="The version of the split it was scored on.")
    scored_at = models.DateTimeField(help_text="When the replaced score was made.")
    superseded_at = models.DateTimeField(auto_now_add=True)
    run = models.ForeignKey("RescoreRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                            help_text="The re-score that replaced it.")

    class Meta:
        ordering = ["submission", "-superseded_at", "-id"]
        indexes = [models.Index(fields=["submission", "scorer_version"])]

    def __str__(self) -> str:
        return f"{self.submission_id} under {self.scorer_version}: {self.overall}"


class RescoreRun(models.Model):
    """One re-score of a benchmark's scored submissions (all its splits, or one) to the scorer version the code has
    now: a background job of one item per submission (`scoring.rescore`)."""

    class Reason(models.TextChoices):
        CURATOR = "curator", "Started by a curator"
        COMMAND = "command", "manage.py rescore"
        DEPLOY = "deploy", "A new scorer version deployed"
        SPLIT = "split", "A new split version published"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="rescore_runs")
    split = models.ForeignKey(Split, null=True, blank=True, on_delete=models.CASCADE, related_name="+",
                              help_text="Empty: every split of the benchmark.")
    scorer_version = models.CharField(
        max_length=200, blank=True,
        help_text="The version the plugin declared when the run started; a submission already scored under it is "
                  "left alone (empty: the plugin declares none, every submission is re-scored).")
    force = models.BooleanField(default=False, help_text="Re-score even submissions already under this version.")
    target_split = models.ForeignKey(
        Split, null=True, blank=True, on_delete=models.CASCADE, related_name="+",
        help_text="A split-version run: each scored submission of the split's previous version is scored on this "
                  "version as a submission of its own (reproduced by the hub); the old one stays on its version's "
                  "board.")
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.CURATOR)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        if self.target_split_id:
            return f"re-score #{self.pk} of {self.benchmark.slug} onto {self.target_split}"
        return f"re-score #{self.pk} of {self.benchmark.slug} to {self.scorer_version or 'the current scorer'}"


class RescoreItem(models.Model):
    """One submission of a re-score: claimed with a lease like a submission's scoring (exactly once per run), and
    final as rescored, unchanged (already under the version), or failed (with why; the run goes on)."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        RESCORED = "rescored", "Re-scored"
        UNCHANGED = "unchanged", "Already under this version"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(RescoreRun, on_delete=models.CASCADE, related_name="items")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="rescore_items")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)
    old_overall = models.FloatField(null=True, blank=True)
    new_overall = models.FloatField(null=True, blank=True)
    old_scorer_version = models.CharField(max_length=200, blank=True)
    new_scorer_version = models.CharField(max_length=200, blank=True)
    result = models.ForeignKey(Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                               help_text="A split-version run's new submission on the new version.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "submission"]
        constraints = [models.UniqueConstraint(fields=["run", "submission"], name="unique_rescore_item")]
        indexes = [models.Index(fields=["state", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"#{self.submission_id} in run {self.run_id}: {self.state}"
