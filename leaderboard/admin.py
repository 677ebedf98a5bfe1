"""Admin for precomputed board comparisons (read-mostly: the scoring pipeline writes them) and frozen snapshots
(read only: a snapshot never changes; a curator may delete one made by mistake)."""
from django.contrib import admin

from leaderboard.models import BoardComparison, BoardSnapshot


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
