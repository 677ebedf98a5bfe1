"""`python manage.py import_epic PATH --split NAME [--hidden|--public]`: import an EPIC-Bench split from the
toolkit's raw layout (PATH is `EPIC_Bench/` or the folder holding it)."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.benchmarks.epic.importer import ImportError_, epic_split_import


class Command(BaseCommand):
    help = "Import an EPIC-Bench split from the toolkit's raw dataset layout (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--split", default="test", help="split name (default: test)")
        parser.add_argument("--split-version", type=int, default=1)
        parser.add_argument("--description", default="")
        visibility = parser.add_mutually_exclusive_group()
        visibility.add_argument("--hidden", dest="hidden", action="store_true", default=True,
                                help="ground truth never served (default)")
        visibility.add_argument("--public", dest="hidden", action="store_false", help="ground truth may be shown")
        parser.add_argument("--strict", action="store_true", help="fail if any sample had a problem")

    def handle(self, *args, **opts):
        try:
            split, report = epic_split_import(path=Path(opts["path"]), split_name=opts["split"], hidden=opts["hidden"],
                                              version=opts["split_version"], description=opts["description"])
        except ImportError_ as exc:
            raise CommandError(str(exc)) from exc
        for problem in report.problems[:200]:
            self.stderr.write(f"problem: {problem}")
        if len(report.problems) > 200:
            self.stderr.write(f"... and {len(report.problems) - 200} more problems")
        self.stdout.write(
            f"{split}: {report.created} created, {report.updated} updated, {report.unchanged} unchanged, "
            f"{report.images_stored} images stored, {len(report.problems)} problems"
            f" ({'hidden' if split.hidden_ground_truth else 'public'} ground truth)"
        )
        if opts["strict"] and report.problems:
            raise CommandError(f"{len(report.problems)} problems")
