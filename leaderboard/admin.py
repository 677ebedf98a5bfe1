"""Admin for precomputed board comparisons (read-mostly: the scoring pipeline writes them)."""
from django.contrib import admin

from leaderboard.models import BoardComparison


@admin.register(BoardComparison)
class BoardComparisonAdmin(admin.ModelAdmin):
    list_display = ("id", "split", "a", "b", "difference", "p_value", "shared_units", "computed_at")
    list_filter = ("split",)
    raw_id_fields = ("a", "b")
    readonly_fields = ("computed_at",)
