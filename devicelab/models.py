"""Device projects, device drafts (a `vge-device/1` definition being authored from photos), their history, the
photo of each view, every box an annotator drew, review rounds and publications."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models import Image
from scoring.models import Split
from simulator.models import Device, OrderedJSONField


def playtest_device_id(draft_pk: int) -> str:
    """The device a draft's play-test installs (simulator.playtests keeps it to its author and reviewers)."""
    return f"lab-draft-{draft_pk}"


class DeviceProject(models.Model):
    """Devices authored together (a lab's appliances, a benchmark's new categories); roles as annotation projects."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    instructions = models.TextField(blank=True, help_text="Shown to annotators in the device editor.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class DeviceDraft(models.Model):
    """One device being authored. `version` increases with every saved change (optimistic concurrency); every saved
    version is kept as a `DraftRevision`."""

    class State(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted for review"
        NEEDS_REVISION = "needs_revision", "Needs revision"
        ACCEPTED = "accepted", "Accepted"
        PUBLISHED = "published", "Published"
        REJECTED = "rejected", "Rejected"

    project = models.ForeignKey(DeviceProject, on_delete=models.CASCADE, related_name="drafts")
    device_id = models.SlugField(max_length=150, unique=True, help_text="The device's id once published.")
    category = models.CharField(max_length=100)
    definition = OrderedJSONField(help_text="The vge-device/1 definition as authored (views name their photos).")
    state = models.CharField(max_length=20, choices=State.choices, default=State.IN_PROGRESS, db_index=True)
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="device_drafts")
    checks = models.JSONField(default=list, blank=True, help_text="The live checks of the current version.")
    version = models.PositiveIntegerField(default=1)
    review_round = models.PositiveSmallIntegerField(default=0, help_text="Approvals so far in this submission.")
    playtested_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The version last installed for a play-test (submitting needs the current).")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "device_id"]

    def __str__(self) -> str:
        return self.device_id

    @property
    def playtest_device_id(self) -> str:
        return playtest_device_id(self.pk)


class DraftRevision(models.Model):
    class Kind(models.TextChoices):
        CREATE = "create", "Created"
        SAVE = "save", "Saved"
        SUBMIT = "submit", "Submitted"
        REVIEW = "review", "Reviewed"
        PUBLISH = "publish", "Published"

    draft = models.ForeignKey(DeviceDraft, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    snapshot = OrderedJSONField()
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "pk"]

    def __str__(self) -> str:
        return f"{self.draft} v{self.version} {self.kind}"


class ViewPhoto(models.Model):
    """The photo of one view (an uploaded annotation image: upright, within the size limits, shared embeddings), or,
    with `state`, how that view looks in that state where its appearance changes (the state's `look.photos`)."""

    draft = models.ForeignKey(DeviceDraft, on_delete=models.CASCADE, related_name="photos")
    view = models.CharField(max_length=20)
    state = models.CharField(max_length=100, blank=True, help_text="Empty: the view's own photo.")
    image = models.ForeignKey(Image, on_delete=models.PROTECT, related_name="device_views")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "pk"]
        constraints = [models.UniqueConstraint(fields=["draft", "view", "state"], name="unique_draft_view_state")]

    def __str__(self) -> str:
        return f"{self.draft}/{self.view}" + (f"@{self.state}" if self.state else "")


class BoxMark(models.Model):
    """A box an annotator drew for a component on a view (kept for the annotation-quality figure)."""

    draft = models.ForeignKey(DeviceDraft, on_delete=models.CASCADE, related_name="marks")
    component = models.CharField(max_length=100)
    view = models.CharField(max_length=20)
    box = models.JSONField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    proposed_by = models.CharField(max_length=30, blank=True, help_text="The segmentation backend, or empty: drawn.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "pk"]

    def __str__(self) -> str:
        return f"{self.draft}/{self.component}@{self.view}"


class DraftReview(models.Model):
    class Verdict(models.TextChoices):
        APPROVE = "approve", "Approve"
        REVISE = "revise", "Needs revision"
        REJECT = "reject", "Reject"

    draft = models.ForeignKey(DeviceDraft, on_delete=models.CASCADE, related_name="reviews")
    version = models.PositiveIntegerField(help_text="The draft version reviewed.")
    round = models.PositiveSmallIntegerField()
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    note = models.TextField(blank=True)
    issues = models.JSONField(default=list, blank=True, help_text="[{view, box?, text}]: issues marked on a view.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "pk"]

    def __str__(self) -> str:
        return f"{self.draft} round {self.round}: {self.verdict}"


class DevicePublication(models.Model):
    """One published version of a draft: the definition as published, into which split."""

    draft = models.ForeignKey(DeviceDraft, on_delete=models.CASCADE, related_name="publications")
    version = models.PositiveIntegerField()
    split = models.ForeignKey(Split, on_delete=models.PROTECT, related_name="device_publications")
    device = models.ForeignKey(Device, null=True, on_delete=models.SET_NULL, related_name="publications")
    definition = OrderedJSONField()
    tasks = models.PositiveIntegerField(default=0)
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draft", "version"]
        constraints = [models.UniqueConstraint(fields=["draft", "version"], name="unique_publication_version")]

    def __str__(self) -> str:
        return f"{self.draft} v{self.version} -> {self.split}"
