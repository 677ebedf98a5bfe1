from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from scoring.published import published_rows_load


class Command(BaseCommand):
    help = "Load the papers' published results as 'reported' rows (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--dir", default=str(settings.PUBLISHED_DATA_DIR))

    def handle(self, *args, **options):
        counts = published_rows_load(directory=Path(options["dir"]))
        summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        self.stdout.write(f"published rows loaded ({summary})")
