"""Review rounds, blind second opinions, publishing links and the audit trail of annotation items (issue 8).

Imported by annotation/models.py, so these are models of the `annotation` app.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.core.review import REASON_LABELS, Reason, Verdict


class ReviewConfig(models.Model):
    """Per-project review policy (a project without one uses the defaults)."""

    project = models.OneToOneField("annotation.Project", on_delete=models.CASCADE, related_name="review_config")
    rounds_required = models.PositiveSmallIntegerField(default=2, help_text="Review rounds an item must pass.")
    distinct_reviewers = models.BooleanField(default=True, help_text="Each round by a different reviewer.")
    min_agreement_f1 = models.FloatField(default=0.5, help_text="Second opinions below this F1 flag the item.")
    min_agreement_iou = models.FloatField(default=0.5, help_text="... or below this mean IoU of matched instances.")

    def __str__(self) -> str:
        return f"{self.project}: {self.rounds_required} rounds"


class Review(models.Model):
    """One reviewer's verdict on one pinned version of an item, in one round of one cycle."""

    VERDICT_CHOICES = [(v.value, v.value.title()) for v in Verdict]

    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="reviews")
    revision = models.ForeignKey("annotation.ItemRevision", on_delete=models.PROTECT, related_name="reviews",
                                 help_text="The submitted version the reviewer saw (pinned).")
    version = models.PositiveIntegerField()
    cycle = models.PositiveIntegerField(default=1, help_text="Increases when a published item is reopened.")
    round = models.PositiveSmallIntegerField()
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotation_reviews")
    verdict = models.CharField(max_length=10, choices=VERDICT_CHOICES)
    reasons = models.JSONField(default=list, blank=True, help_text="Reason codes from the taxonomy.")
    comment = models.TextField(blank=True)
    markers = models.JSONField(default=list, blank=True, help_text="[{image, x, y, note}] drawn on the image.")
    seconds = models.FloatField(null=True, blank=True, help_text="From opening the review to the verdict.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "pk"]
        indexes = [models.Index(fields=["item", "cycle"]), models.Index(fields=["reviewer", "created_at"])]

    def __str__(self) -> str:
        return f"{self.item} v{self.version} round {self.round}: {self.verdict}"

    @property
    def reason_labels(self) -> list[str]:
        return [REASON_LABELS[Reason(r)] for r in self.reasons if r in Reason._value2member_map_]


class ReviewOpening(models.Model):
    """A reviewer opened an item's pinned version (for the time spent and to refuse a verdict on a stale copy)."""

    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="review_openings")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "reviewer", "version"], name="unique_review_opening")]


class SecondOpinion(models.Model):
    """A blind second annotation of an item's scored layer by another annotator, and its agreement."""

    class Status(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        DONE = "done", "Done"

    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="second_opinions")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    first_annotator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                        related_name="+")
    compared_version = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ASSIGNED)
    version = models.PositiveIntegerField(default=1, help_text="Optimistic concurrency of the blind editor.")
    instances = models.JSONField(default=dict, blank=True)
    count = models.IntegerField(null=True, blank=True)
    masklet = models.CharField(max_length=60, blank=True)
    mean_iou = models.FloatField(null=True, blank=True)
    f1 = models.FloatField(null=True, blank=True)
    union_iou = models.FloatField(null=True, blank=True)
    count_equal = models.BooleanField(null=True, blank=True)
    low_agreement = models.BooleanField(default=False)
    why = models.JSONField(default=list, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item", "pk"]
        constraints = [models.UniqueConstraint(fields=["item", "annotator"], name="unique_second_opinion")]

    def __str__(self) -> str:
        return f"second opinion on {self.item} by {self.annotator}"


class PublishedSample(models.Model):
    """An item version published as a sample of a split version: the link from the benchmark back to its history."""

    item = models.ForeignKey("annotation.Item", on_delete=models.PROTECT, related_name="published")
    item_version = models.PositiveIntegerField()
    revision = models.ForeignKey("annotation.ItemRevision", on_delete=models.PROTECT, related_name="+")
    sample = models.ForeignKey("scoring.Sample", on_delete=models.CASCADE, related_name="annotation_links")
    split = models.ForeignKey("scoring.Split", on_delete=models.CASCADE, related_name="annotation_links")
    provenance = models.JSONField(default=dict, blank=True,
                                  help_text="How each published mask was made (the item version's provenance).")
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                     related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["item", "split"], name="unique_item_per_split")]

    def __str__(self) -> str:
        return f"{self.item} v{self.item_version} -> {self.split}"


class AuditEvent(models.Model):
    """Every state change of an item: who, when, what (and anything else checked server-side)."""

    item = models.ForeignKey("annotation.Item", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="audit_events")
    project = models.ForeignKey("annotation.Project", null=True, blank=True, on_delete=models.CASCADE,
                                related_name="audit_events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=30)
    from_state = models.CharField(max_length=20, blank=True)
    to_state = models.CharField(max_length=20, blank=True)
    version = models.PositiveIntegerField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["item", "created_at"])]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor}: {self.action} {self.item}"

