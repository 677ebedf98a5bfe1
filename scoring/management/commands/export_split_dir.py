"""`python manage.py export_split_dir BENCHMARK SPLIT DIR [--split-version N]`: write a split's samples with their ground
truth as a split folder (DIR/samples.jsonl, DIR/split.json) for `python -m scoring verify --split-dir DIR`. Run by the
site's operators: it holds a hidden split's ground truth, which only curators may be given."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Split
from scoring.provenance import split_ground_truth_sha256
from scoring.provenance_cli import SAMPLES_FILE
from scoring.selectors import split_samples


class Command(BaseCommand):
    help = "Write a split's samples with ground truth as a folder for `python -m scoring verify --split-dir`."

    def add_arguments(self, parser):
        parser.add_argument("benchmark")
        parser.add_argument("split")
        parser.add_argument("folder", type=Path)
        parser.add_argument("--split-version", type=int, dest="version", help="the split's version (default: the newest)")

    def handle(self, *args, benchmark: str, split: str, folder: Path, version: int | None, **kw):
        splits = Split.objects.filter(benchmark__slug=benchmark, name=split).order_by("-version")
        found = splits.filter(version=version).first() if version else splits.first()
        if found is None:
            raise CommandError(f"No split {benchmark}/{split}" + (f" version {version}" if version else ""))
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / SAMPLES_FILE).open("w", encoding="utf-8") as out:
            for s in split_samples(split=found):
                out.write(json.dumps({"key": s.key, "position": s.position, "category": s.category,
                                      "group": s.group, "task": s.task, "inputs": dict(s.inputs),
                                      "ground_truth": dict(s.ground_truth)}, ensure_ascii=False) + "\n")
        (folder / "split.json").write_text(json.dumps({
            "benchmark": benchmark, "split": found.name, "version": found.version,
            "ground_truth_sha256": split_ground_truth_sha256(split=found)}, indent=2) + "\n", encoding="utf-8")
        self.stdout.write(f"wrote {folder / SAMPLES_FILE} ({found.samples.count()} samples, version {found.version})")
