"""PLAN-Bench's judge records in the admin (loaded by Django's admin autodiscovery: the package is an app)."""
from django.contrib import admin

from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement, PlanVerdict


class ReadOnlyJudgeRecordAdmin(admin.ModelAdmin):
    """People's and judges' verdicts are decided through plan_judgement_decide only (nobody judges their own
    answers; every decision is recorded): the admin shows them and changes none."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PlanVerdict)
class PlanVerdictAdmin(ReadOnlyJudgeRecordAdmin):
    list_display = ("item_key", "judge", "prompt_version", "decided_by", "correct", "created_at")
    list_filter = ("decided_by", "judge", "prompt_version")
    search_fields = ("item_key", "output_text")


@admin.register(PlanJudgement)
class PlanJudgementAdmin(ReadOnlyJudgeRecordAdmin):
    list_display = ("item_key", "subtask", "status", "created_at", "decided_at")
    list_filter = ("status", "dimension", "subtask")
    search_fields = ("item_key", "output_text")


@admin.register(PlanAuditCheck)
class PlanAuditCheckAdmin(admin.ModelAdmin):
    list_display = ("item_key", "split", "subtask", "judge", "judge_correct", "human_correct", "reviewer")
    list_filter = ("split", "dimension", "judge_decided_by")
