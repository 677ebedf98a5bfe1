"""Admin for precomputed board comparisons (read-mostly: the scoring pipeline writes them), the Analysis tab's
per-submission summaries (read only: derived from the scores; one deleted is made again when a page needs it) and
frozen snapshots (read only: a snapshot never changes; a curator may delete one made by mistake), and the
board-change log with its pruning horizon (read only: PostgreSQL's triggers and the pruning task write them)."""
from django.contrib import admin

from leaderboard.models import AnalysisSummary, BoardChange, BoardChangeHorizon, BoardComparison, BoardSnapshot


@admin.register(BoardComparison)
class BoardComparisonAdmin(admin.ModelAdmin):
    list_display = ("id", "split", "a", "b", "difference", "p_value", "shared_units", "computed_at")
    list_filter = ("split",)
    raw_id_fields = ("a", "b")
    readonly_fields = ("computed_at",)


@admin.register(BoardSnapshot)
class BoardSnapshotAdmin(admin.ModelAdmin):
    list_display = ("name", "benchmark", "split", "scorer_version", "content_sha256", "created_by", "created_at")
    list_filter = ("benchmark",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False  # frozen from a board's page, where its rows come from


@admin.register(AnalysisSummary)
class AnalysisSummaryAdmin(admin.ModelAdmin):
    list_display = ("id", "submission", "disclosure", "version", "computed_at")
    list_filter = ("disclosure",)
    raw_id_fields = ("submission",)
    readonly_fields = ("submission", "disclosure", "version", "summary", "computed_at")

    def has_add_permission(self, request) -> bool:
        return False  # written from the scores (leaderboard.services_analysis)

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class _WrittenByTheDatabase(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a change deleted by hand would leave a process's kept rows stale


@admin.register(BoardChange)
class BoardChangeAdmin(_WrittenByTheDatabase):
    list_display = ("id", "split_id", "kind", "item_id", "xid", "at")
    list_filter = ("kind",)


@admin.register(BoardChangeHorizon)
class BoardChangeHorizonAdmin(_WrittenByTheDatabase):
    list_display = ("id", "below")
