"""Write the generated VGE library (26 categories x variants, tasks, split `demo`) to the database. Idempotent."""
import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.plugin import SLUG as VGE_SLUG
from scoring.models import Split
from simulator.models import Task
from simulator.services.baseline import baseline_mark
from simulator.services.library import (
    TEST_SPLIT,
    demo_agents_submit,
    demo_library_install,
    demo_test_install,
    practice_install,
)


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variants", type=int, default=2, help="devices per category (at least 2)")
        parser.add_argument("--no-agents", action="store_true", help="skip the demo agents' submissions")
        parser.add_argument("--export", help="also write devices/*.json and tasks.jsonl to this folder (for the CLI)")

    def handle(self, *args, seed: int, variants: int, export: str | None, no_agents: bool, **options):
        report = demo_library_install(seed=seed, variants=max(2, variants))
        if export:
            devices, tasks = build_library(seed=seed, variants=max(2, variants))
            folder = Path(export)
            (folder / "devices").mkdir(parents=True, exist_ok=True)
            for data in devices:
                (folder / "devices" / f"{data['id']}.json").write_text(json.dumps(data, indent=1))
            (folder / "tasks.jsonl").write_text("".join(json.dumps(t.as_dict()) + "\n" for t in tasks))
            self.stdout.write(f"exported to {folder}/devices and {folder}/tasks.jsonl")
        self.stdout.write(f"VGE demo: {report.devices} devices, {report.tasks} tasks in split {report.split}")
        test = demo_test_install(seed=seed, variants=max(2, variants))
        self.stdout.write(f"  test phase: {test.tasks} tasks in split {test.split} (hidden ground truth)")
        self.stdout.write(f"  practice task: {practice_install().task_id} (in no split: never scored)")
        if not Task.objects.filter(baseline_rank__isnull=False).exists():
            # A playable human baseline out of the box; curators can choose another set at /simulator/baseline/.
            curator, _ = get_user_model().objects.get_or_create(
                username="demo-curator", defaults={"is_active": False, "is_staff": True}
            )
            self.stdout.write(f"  baseline set: {len(baseline_mark(user=curator))} tasks (one per stratum)")
        if not no_agents:
            split = Split.objects.get(benchmark__slug=VGE_SLUG, name="demo", version=1)
            for name, submission, outcome in demo_agents_submit(split=split, seed=seed):
                score = getattr(submission, "score", None)
                sr = f"SR {score.overall:.1f}" if score and score.overall is not None else submission.error_message[:200]
                self.stdout.write(f"  {name}: #{submission.pk} {outcome}, status {submission.status}, {sr}")
            test_split = Split.objects.get(benchmark__slug=VGE_SLUG, name=TEST_SPLIT, version=1)
            for name, submission, outcome in demo_agents_submit(split=test_split, seed=seed, first_only=True):
                score = getattr(submission, "score", None)
                sr = f"SR {score.overall:.1f}" if score and score.overall is not None else submission.error_message[:200]
                self.stdout.write(f"  {name} on {TEST_SPLIT}: #{submission.pk} {outcome}, status {submission.status}, {sr}")
