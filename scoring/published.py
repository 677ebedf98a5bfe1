"""Load the papers' published rows as "reported" submissions, idempotently (safe on every `make run`)."""
from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from scoring.benchmarks import plugins
from scoring.core.published import ModelFacts, PublishedRow, read_all, read_deltas, read_model_facts
from scoring.models import Benchmark, ModelEntry, Score, Submission
from scoring.services import model_entry_slug

log = logging.getLogger(__name__)
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
    if entry is None and row.thinking:
        # Loaded before the mode was known (the facts file states it from the name): the same model, now stated.
        entry = variants.filter(thinking=ModelEntry.Thinking.UNKNOWN, owner__isnull=True).first()
        if entry is not None:
            entry.thinking = row.thinking
            entry.save(update_fields=["thinking"])
    if entry is None:
        entry = ModelEntry.objects.create(
            name=row.model, thinking=row.thinking, slug=model_entry_slug(row.model, row.thinking), kind=row.kind
        )
    return entry


def _facts_apply(entry: ModelEntry, facts: ModelFacts | None, *, thinking_source: str = "") -> None:
    """Fill the entry's blank facts (organisation, open weights, parameters) from the data file, each with its
    source; a fact already there (its owner's or a curator's edit) stays. `thinking_source`: where the row's
    thinking mode is stated ("" when nowhere)."""
    sources = dict(entry.fact_sources or {})
    changed = []
    for name in ("organisation", "open_weights", "parameters_b"):
        value = getattr(facts, name) if facts is not None else None
        if value in (None, "") or getattr(entry, name) not in (None, ""):
            continue
        setattr(entry, name, value)
        sources[name] = facts.sources[name]
        changed.append(name)
    if thinking_source and entry.thinking:
        sources["thinking"] = thinking_source
    if sources != (entry.fact_sources or {}):
        entry.fact_sources = sources
        changed.append("fact_sources")
    if changed:
        entry.save(update_fields=changed)


def _thinking_source(row: PublishedRow, facts: ModelFacts | None) -> str:
    if row.thinking:
        return f"the paper's table ({row.source_file})"
    return facts.sources.get("thinking", "") if facts is not None and facts.thinking else ""


def _version_or_blank(plugin) -> str:
    """The plugin's scorer version now, or "" when it cannot say (PLAN with an unusable prompt file): loading the
    papers' rows never fails for it."""
    try:
        return plugin.current_scorer_version()
    except Exception:  # a site-side read of the plugin's settings or files
        log.warning("the %s plugin could not say its scorer version", plugin.slug, exc_info=True)
        return ""


def published_rows_load(*, directory: Path) -> dict[str, int]:
    tables = [plugin.published for plugin in plugins() if plugin.published]
    facts = read_model_facts(directory)
    # A row whose paper does not state the thinking mode takes the one the model's name states (with its source).
    rows = [(replace(row, thinking=facts[row.model].thinking)
             if not row.thinking and row.model in facts and facts[row.model].thinking else row,
             _thinking_source(row, facts.get(row.model)))
            for row in read_all(directory, tables)]
    for table in tables:
        read_deltas(directory, table)  # the Analysis tab reads them at request time: a bad file fails here first
    counts: dict[str, int] = {}
    # A paper's rows are comparable to the scorer version the hub had when they were first loaded (its protocol is
    # the one the paper's figures were checked against); kept on later loads, so a newer scorer does not claim them.
    current_versions = {plugin.slug: _version_or_blank(plugin) for plugin in plugins() if plugin.published}
    with transaction.atomic():
        splits = {b.slug: b.splits.get(name="test", version=1) for b in Benchmark.objects.all()}
        for row, thinking_source in rows:
            entry = _entry_for(row)
            _facts_apply(entry, facts.get(row.model), thinking_source=thinking_source)
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
            comparable = Score.objects.filter(submission=submission).values_list(
                "details__comparable_scorer_version", flat=True).first() or current_versions.get(row.benchmark, "")
            Score.objects.update_or_create(
                submission=submission,
                defaults={
                    "overall": row.overall,
                    "breakdown": {k: v for k, v in row.breakdown.items() if v is not None},
                    "intervals": {},
                    "details": {
                        "source": "paper", "csv_line": row.line, "csv_file": row.source_file,
                        "figures": dict(row.figures), "figure_sources": dict(row.sources),
                        "comparable_scorer_version": comparable,
                    },
                    "scorer_version": REPORTED_VERSION,
                },
            )
            counts[row.benchmark] = counts.get(row.benchmark, 0) + 1
    return counts
