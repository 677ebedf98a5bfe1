"""Start a re-score (docs/rescoring.md): of one benchmark, or of every benchmark whose scorer version changed."""
from django.core.management.base import BaseCommand, CommandError

from scoring import rescore, tasks
from scoring.errors import ServiceRefusal
from scoring.models import Benchmark, RescoreItem, RescoreRun


class Command(BaseCommand):
    help = ("Re-score scored submissions with the scorer the code has now, keeping the old scores. Without a "
            "benchmark: every benchmark whose plugin declares a version some of its scores do not bear (what a "
            "deploy runs; a worker does the same when it starts).")

    def add_arguments(self, parser):
        parser.add_argument("benchmark", nargs="?", help="a benchmark's slug (default: every one that changed)")
        parser.add_argument("--split", help="only this split (its newest version)")
        parser.add_argument("--force", action="store_true", help="re-score even scores already under the version")
        parser.add_argument("--here", action="store_true",
                            help="score the items in this process instead of sending them to the workers")

    def handle(self, *args, **options):
        enqueue = None if options["here"] else tasks.rescore_item_enqueue
        if not options["benchmark"]:
            runs = rescore.rescore_runs_start_for_changes(reason=RescoreRun.Reason.COMMAND, enqueue=enqueue)
        else:
            benchmark = Benchmark.objects.filter(slug=options["benchmark"]).first()
            if benchmark is None:
                raise CommandError(f"No benchmark {options['benchmark']!r}; known: "
                                   + ", ".join(Benchmark.objects.values_list("slug", flat=True)))
            split = None
            if options["split"]:
                split = benchmark.splits.filter(name=options["split"]).order_by("-version").first()
                if split is None:
                    raise CommandError(f"No split {options['split']!r} of {benchmark.slug}.")
            try:
                runs = [rescore.rescore_run_start(benchmark=benchmark, split=split, reason=RescoreRun.Reason.COMMAND,
                                                  force=options["force"], enqueue=enqueue)]
            except ServiceRefusal as exc:
                raise CommandError(exc.message) from exc
        if not runs:
            self.stdout.write("no scorer version changed: nothing to re-score")
        for run in runs:
            if options["here"]:
                for item_id in run.items.filter(state=RescoreItem.State.QUEUED).values_list("pk", flat=True):
                    rescore.rescore_item_run(item_id=item_id, worker="manage.py rescore")
            progress = rescore.run_progress(run=run)
            counts = ", ".join(f"{n} {state}" for state, n in progress.counts.items() if n)
            self.stdout.write(f"{run}: {progress.total} submission(s){': ' + counts if counts else ''}")
