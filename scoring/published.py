"""Load the papers' published rows as "reported" submissions, idempotently (safe on every `make run`)."""
from __future__ import annotations

from pathlib import Path

from django.db import transaction
from django.utils import timezone

from scoring.benchmarks import plugins
from scoring.core.published import PublishedRow, read_all, read_deltas
from scoring.models import Benchmark, ModelEntry, Score, Submission
from scoring.services import model_entry_slug

REPORTED_VERSION = "paper"


def _entry_for(row: PublishedRow) -> ModelEntry:
    """The variant a row belongs to. A paper that does not state the thinking mode matches the model's
    existing non-thinking (or only) entry, so one model has one page across benchmarks."""
    variants = ModelEntry.objects.filter(name=row.model)
    entry = variants.filter(thinking=row.thinking).first()
    if entry is None and not row.thinking:
        entry = variants.filter(thinking=ModelEntry.Thinking.NO).first() or (
            variants.first() if variants.count() == 1 else None
        )
    if entry is None:
        entry = ModelEntry.objects.create(
            name=row.model, thinking=row.thinking, slug=model_entry_slug(row.model, row.thinking), kind=row.kind
        )
    return entry


def published_rows_load(*, directory: Path) -> dict[str, int]:
    tables = [plugin.published for plugin in plugins() if plugin.published]
    rows = read_all(directory, tables)
    for table in tables:
        read_deltas(directory, table)  # the Analysis tab reads them at request time: a bad file fails here first
    counts: dict[str, int] = {}
    with transaction.atomic():
        splits = {b.slug: b.splits.get(name="test", version=1) for b in Benchmark.objects.all()}
        for row in rows:
            entry = _entry_for(row)
            submission, _ = Submission.objects.update_or_create(
                model_entry=entry,
                split=splits[row.benchmark],
                source=Submission.Source.REPORTED,
                defaults={
                    "status": Submission.Status.SCORED,
                    "scorer_version": REPORTED_VERSION,
                    "note": row.note,
                    "finished_at": timezone.now(),
                },
            )
            Score.objects.update_or_create(
                submission=submission,
                defaults={
                    "overall": row.overall,
                    "breakdown": {k: v for k, v in row.breakdown.items() if v is not None},
                    "intervals": {},
                    "details": {
                        "source": "paper", "csv_line": row.line, "csv_file": row.source_file,
                        "figures": dict(row.figures), "figure_sources": dict(row.sources),
                    },
                    "scorer_version": REPORTED_VERSION,
                },
            )
            counts[row.benchmark] = counts.get(row.benchmark, 0) + 1
    return counts
