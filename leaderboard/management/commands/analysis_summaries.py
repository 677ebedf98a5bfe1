"""Make the Analysis tab's summaries that are missing or stale (issue 34): after a deploy that changes a
benchmark's `summarise` (its summaries' version), or for scores that landed before summaries existed. Pages make
a missing one on demand too; this spares the first reader the wait."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from leaderboard import selectors, services_analysis
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.models import Split, Submission


class Command(BaseCommand):
    help = "Make the Analysis tab's per-submission summaries that are missing or of another version."

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", default="", help="only this benchmark's splits (its slug)")

    def handle(self, *args, benchmark: str, **options):
        splits = Split.objects.select_related("benchmark").order_by("pk")
        if benchmark:
            splits = splits.filter(benchmark__slug=benchmark)
        for split in splits:
            try:
                plugin = plugin_for(split.benchmark.scorer)
            except UnknownBenchmark:
                continue
            if plugin.analysis_summaries_spec() is None:
                continue
            kinds = dict(Submission.objects.filter(split=split, status=Submission.Status.SCORED)
                         .values_list("pk", "model_entry__kind"))
            stored = selectors.analysis_summaries_stored(
                submission_ids=list(kinds), disclosure=services_analysis.disclosure_of(split),
                version=plugin.analysis_summary_version(split))
            missing = {pk: kind for pk, kind in kinds.items() if pk not in stored}
            made = services_analysis.analysis_summaries_compute(split=split, plugin=plugin, kinds=missing)
            self.stdout.write(f"{split.benchmark.slug}/{split.name} v{split.version}: {len(made)} summaries made, "
                              f"{len(stored)} current")
