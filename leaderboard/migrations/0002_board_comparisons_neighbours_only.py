"""Boards compare neighbours in rank only (issue 34); the all-pairs table the old rule stored is dropped.

The stored comparisons are derived data: a board view computes the pairs it shows when they are missing
(`leaderboard.services.board_view_build`), so nothing is lost, and the board data no longer loads O(rows²) rows.
"""
from django.db import migrations


def drop_all_pairs(apps, schema_editor):
    apps.get_model("leaderboard", "BoardComparison").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]
    operations = [migrations.RunPython(drop_all_pairs, migrations.RunPython.noop)]
