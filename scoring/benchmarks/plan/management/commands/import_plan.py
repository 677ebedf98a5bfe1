"""`python manage.py import_plan PATH`: PLAN-Bench items (JSONL + images folder, or a VLMEvalKit TSV) into a split."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.benchmarks.plan.core.readers import read_items
from scoring.benchmarks.plan.plugin import SLUG as PLAN_SLUG
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.core.contract import SubmissionRejected
from scoring.models import Benchmark, Split


class Command(BaseCommand):
    help = "Import PLAN-Bench items into a split of plan-bench (idempotent: samples are matched by id)."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="items.jsonl (plan-item/1) or a VLMEvalKit .tsv")
        parser.add_argument("--images", type=Path, help="folder the item image paths are relative to "
                            "(default: the items file's folder)")
        parser.add_argument("--split", default="test", help="split name (default: test)")
        parser.add_argument("--split-version", type=int, default=1, help="split version (default: 1)")
        parser.add_argument("--public-ground-truth", action="store_true", help="show answers publicly (demo/dev splits)")

    def handle(self, *args, path: Path, images: Path | None, split: str, split_version: int, public_ground_truth: bool, **kw):
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            items = read_items(path)
        except SubmissionRejected as exc:
            lines = [exc.message, *(f"  {p}" for p in exc.problems[1:])]
            raise CommandError("\n".join(lines)) from None
        benchmark = Benchmark.objects.filter(slug=PLAN_SLUG).first()
        if benchmark is None:
            raise CommandError("The plan-bench benchmark is not registered; run `python manage.py migrate` first.")
        split_row, _ = Split.objects.get_or_create(
            benchmark=benchmark, name=split, version=split_version,
            defaults={"hidden_ground_truth": not public_ground_truth, "description": f"Imported from {path.name}."},
        )
        folder = (images or path.parent).resolve()

        def read_image(name: str) -> bytes | None:
            candidate = (folder / name).resolve()
            if folder not in candidate.parents or not candidate.is_file():
                return None  # outside the folder, or missing
            return candidate.read_bytes()

        created, updated, problems = plan_items_import(split=split_row, items=items, read_image=read_image)
        for problem in problems[:20]:
            self.stderr.write(f"warning: {problem}")
        if len(problems) > 20:
            self.stderr.write(f"warning: ... and {len(problems) - 20} more image problems")
        self.stdout.write(f"{split_row}: {created} items created, {updated} updated, {len(problems)} image problems")
