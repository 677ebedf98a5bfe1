"""Annotation projects, uploaded images, items (what an annotator edits), their history and image embeddings."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.core.epic import LEAVES

# The review rounds' models live in annotation/review/; importing them registers them with this app.
from annotation.review.models import (  # noqa: F401 - importing registers them
    AuditEvent,
    PublishedSample,
    Review,
    ReviewConfig,
    ReviewOpening,
    SecondOpinion,
)

LEAF_CHOICES = [(path, path) for path in LEAVES]


class Project(models.Model):
    """Annotation work for one EPIC leaf task."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    leaf = models.CharField(max_length=120, choices=LEAF_CHOICES, help_text="The EPIC leaf task the items are for.")
    description = models.TextField(blank=True)
    instructions = models.TextField(blank=True, help_text="Shown to annotators in the editor.")
    forbid_mask_when_infeasible = models.BooleanField(
        default=False, help_text="PlacementRegion: no placement mask may be drawn when placement is infeasible."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class Image(models.Model):
    file = models.FileField(upload_to="annotation/images/%Y/%m/")
    original = models.FileField(
        upload_to="annotation/images/%Y/%m/", blank=True,
        help_text="The file as uploaded, when `file` is it turned upright by its EXIF orientation.",
    )
    original_name = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64, db_index=True)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    format = models.CharField(max_length=10)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.original_name


class Item(models.Model):
    """One sample being annotated. `version` increases with every saved change (optimistic concurrency)."""

    class State(models.TextChoices):
        TODO = "todo", "To do"
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted for review"
        NEEDS_REVISION = "needs_revision", "Needs revision"
        ACCEPTED = "accepted", "Accepted"
        PUBLISHED = "published", "Published"
        REJECTED = "rejected", "Rejected"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(max_length=200, help_text="Sample name used in exports.")
    position = models.PositiveIntegerField(default=0)
    images = models.ManyToManyField(Image, through="ItemImage", related_name="items")
    state = models.CharField(max_length=20, choices=State.choices, default=State.TODO, db_index=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="annotation_items"
    )
    texts = models.JSONField(default=dict, blank=True, help_text="text_annotation fields, e.g. text_label.")
    count = models.IntegerField(null=True, blank=True)
    precise_count = models.BooleanField(default=False)
    count_in_description = models.BooleanField(default=False)
    placement_feasible = models.BooleanField(null=True, blank=True)
    instances = models.JSONField(default=dict, blank=True, help_text="{masklet: [COCO RLE, ...]}, one RLE per instance.")
    provenance = models.JSONField(
        default=dict, blank=True,
        help_text="{masklet: [entry | null, ...]} aligned with instances: how each mask was made "
                  "(annotation/core/provenance.py).",
    )
    honeypot_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="honeypot_copies",
        help_text="Set on a honeypot: a blank copy of this gold item in an annotator's queue (never shown to them).",
    )
    overlay = models.FileField(upload_to="annotation/overlays/%Y/%m/", blank=True)
    findings = models.JSONField(default=list, blank=True, help_text="Linter findings of the current version.")
    override_reason = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "position", "pk"]
        indexes = [models.Index(fields=["project", "state"]), models.Index(fields=["assignee", "state"])]

    def __str__(self) -> str:
        return f"{self.project.slug}/{self.name}"


class ItemImage(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="item_images")
    image = models.ForeignKey(Image, on_delete=models.PROTECT, related_name="item_images")
    index = models.PositiveSmallIntegerField(help_text="0 for image A / the only image, 1 for image B.")

    class Meta:
        ordering = ["item", "index"]
        constraints = [models.UniqueConstraint(fields=["item", "index"], name="unique_item_image_index")]


class ItemRevision(models.Model):
    """The full edit history: a snapshot of the labels and masks after each change, and who made it."""

    class Kind(models.TextChoices):
        CREATE = "create", "Created"
        SAVE = "save", "Saved"
        SUBMIT = "submit", "Submitted"
        ASSIGN = "assign", "Assigned"
        STATE = "state", "State changed"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    state = models.CharField(max_length=20, choices=Item.State.choices)
    snapshot = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "pk"]
        indexes = [models.Index(fields=["item", "version"])]

    def __str__(self) -> str:
        return f"{self.item} v{self.version} {self.kind}"


class Embedding(models.Model):
    """The status of one image's embedding for one model; the embedding itself is a file in SAM_EMBEDDING_DIR."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Computing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="embeddings")
    model_key = models.CharField(max_length=50)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent.")
    error = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["image", "model_key"], name="unique_image_embedding")]

    def __str__(self) -> str:
        return f"{self.image_id}/{self.model_key}: {self.status}"


class GoldStandard(models.Model):
    """An adjudicated item a curator marked as gold: its pinned version is the answer honeypot copies are scored
    against."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="gold")
    revision = models.ForeignKey(ItemRevision, on_delete=models.PROTECT, related_name="+",
                                 help_text="The version adopted as the gold answer.")
    version = models.PositiveIntegerField()
    active = models.BooleanField(default=True, help_text="Inactive gold is not sent out again; scores stay.")
    marked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    marked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item"]

    def __str__(self) -> str:
        return f"gold {self.item} v{self.version}"


class GoldCheck(models.Model):
    """An annotator's submitted answer on a honeypot copy, scored against the gold item (annotation/core/quality)."""

    copy = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="gold_check")
    gold = models.ForeignKey(GoldStandard, on_delete=models.CASCADE, related_name="checks")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField(help_text="The copy's submitted version.")
    mean_iou = models.FloatField()
    f1 = models.FloatField()
    union_iou = models.FloatField()
    labels_match = models.BooleanField()
    mismatches = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["annotator", "created_at"])]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.gold}: IoU {self.mean_iou:.3f}"


class ConsensusCheck(models.Model):
    """One instance of a submitted version against a fresh model proposal from its stored prompts."""

    class Status(models.TextChoices):
        DONE = "done", "Compared"
        SKIPPED = "skipped", "Not compared"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="consensus_checks")
    version = models.PositiveIntegerField()
    masklet = models.CharField(max_length=60)
    index = models.PositiveIntegerField(help_text="The instance's place in its layer.")
    status = models.CharField(max_length=10, choices=Status.choices)
    reason = models.CharField(max_length=200, blank=True, help_text="Why it was not compared.")
    backend = models.CharField(max_length=50, blank=True, help_text="The model that made the fresh proposal.")
    checkpoint_sha256 = models.CharField(max_length=64, blank=True)
    iou = models.FloatField(null=True, blank=True)
    min_iou = models.FloatField(null=True, blank=True)
    flagged = models.BooleanField(default=False)
    proposal = models.JSONField(null=True, blank=True, help_text="The fresh proposal's COCO RLE.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "version", "masklet", "index"]
        constraints = [models.UniqueConstraint(fields=["item", "version", "masklet", "index"],
                                               name="unique_consensus_check")]

    def __str__(self) -> str:
        return f"{self.item} v{self.version} {self.masklet}[{self.index}]: {self.iou}"
