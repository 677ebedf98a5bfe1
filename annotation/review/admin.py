"""Admin of the review models (imported by annotation/admin.py)."""
from django.contrib import admin

from annotation.models import AuditEvent, PublishedSample, Review, ReviewConfig, ReviewOpening, SecondOpinion


@admin.register(ReviewConfig)
class ReviewConfigAdmin(admin.ModelAdmin):
    list_display = ["project", "rounds_required", "distinct_reviewers", "min_agreement_f1", "min_agreement_iou"]


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["item", "version", "cycle", "round", "reviewer", "verdict", "created_at"]
    list_filter = ["verdict", "round"]
    raw_id_fields = ["item", "revision", "reviewer"]


@admin.register(ReviewOpening)
class ReviewOpeningAdmin(admin.ModelAdmin):
    list_display = ["item", "reviewer", "version", "opened_at"]
    raw_id_fields = ["item", "reviewer"]


@admin.register(SecondOpinion)
class SecondOpinionAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "status", "mean_iou", "f1", "count_equal", "low_agreement"]
    list_filter = ["status", "low_agreement"]
    raw_id_fields = ["item", "annotator", "first_annotator", "requested_by"]


@admin.register(PublishedSample)
class PublishedSampleAdmin(admin.ModelAdmin):
    list_display = ["item", "item_version", "split", "sample", "published_by", "created_at"]
    raw_id_fields = ["item", "revision", "sample", "split", "published_by"]


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "action", "item", "from_state", "to_state", "version"]
    list_filter = ["action"]
    raw_id_fields = ["item", "project", "actor"]

    def has_change_permission(self, request, obj=None):  # the audit trail is append-only
        return False

    def has_delete_permission(self, request, obj=None):
        return False
