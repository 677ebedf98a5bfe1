"""`python manage.py make_demo_plan`: the PLAN-Bench demo split (drawn images, public answers) and two baseline
submissions scored through the normal pipeline; then the test phase's split `demo-test` (other items, one per
subtask, hidden answers) with the oracle on it. The two splits are the demo's Development and Test phases
(`scoring.services.demo_phases_ensure`). Deterministic and idempotent."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from scoring import services
from scoring.benchmarks.plan.core.demo import DEMO_SEED, demo_items, oracle_predictions, random_predictions
from scoring.benchmarks.plan.plugin import SLUG as PLAN_SLUG
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.models import Benchmark, Split

TEST_SPLIT = "demo-test"
TEST_SEED = DEMO_SEED + 1

DEMO_MODELS = {
    "plan-demo-oracle": ("PLAN demo: rule-perfect oracle", "Repeats the ground truth; the rule judge alone scores it.", oracle_predictions),
    "plan-demo-random": ("PLAN demo: random", "A seeded guesser; its free-text answers wait for the judge or a person.", random_predictions),
}


class Command(BaseCommand):
    help = "Create the PLAN-Bench demo split and its baseline submissions (idempotent)."

    def handle(self, *args, **options):
        benchmark = Benchmark.objects.get(slug=PLAN_SLUG)
        split, _ = Split.objects.get_or_create(
            benchmark=benchmark, name="demo", version=1,
            defaults={"hidden_ground_truth": False, "description": f"Generated demo items (seed {DEMO_SEED}) covering all 16 subtasks."},
        )
        demo = demo_items()
        images = {name: png for d in demo for name, png in d.images.items()}
        created, updated, problems = plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
        self.stdout.write(f"{split}: {created} items created, {updated} updated, {len(images)} images")
        items = [d.item for d in demo]
        for slug, (name, description, make) in DEMO_MODELS.items():
            submission, outcome = services.demo_submission_ensure(
                split=split, owner_username="plan-demo", slug=slug, name=name, description=description,
                content=lambda make=make: "".join(json.dumps({"id": p.id, "prediction": p.text}) + "\n" for p in make(items)),
            )
            score = getattr(submission, "score", None)
            state = score.details.get("status_text") if score else submission.status
            overall = f"{score.overall:.1f}" if score and score.overall is not None else "-"
            self.stdout.write(f"  {name}: #{submission.pk} {outcome}, overall {overall}, {state}")
        self._test_phase(benchmark, split)

    def _test_phase(self, benchmark, dev):
        split, _ = Split.objects.get_or_create(
            benchmark=benchmark, name=TEST_SPLIT, version=1,
            defaults={"hidden_ground_truth": True,
                      "description": f"Generated items (seed {TEST_SEED}), one per subtask, hidden answers: the demo's "
                                     "test phase."},
        )
        demo = demo_items(seed=TEST_SEED, per_subtask=1)
        images = {name: png for d in demo for name, png in d.images.items()}
        created, updated, problems = plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
        self.stdout.write(f"{split}: {created} items created, {updated} updated, {len(images)} images")
        dev_phase, test_phase = services.demo_phases_ensure(benchmark=benchmark, dev=dev, test=split)
        self.stdout.write(f"  phases: {dev_phase.name} ({dev.name}), {test_phase.name} ({split.name})")
        items = [d.item for d in demo]
        slug = "plan-demo-oracle"
        name, description, make = DEMO_MODELS[slug]
        submission, outcome = services.demo_submission_ensure(
            split=split, owner_username="plan-demo", slug=slug, name=name, description=description,
            content=lambda: "".join(json.dumps({"id": p.id, "prediction": p.text}) + "\n" for p in make(items)),
        )
        score = getattr(submission, "score", None)
        overall = f"{score.overall:.1f}" if score and score.overall is not None else "-"
        self.stdout.write(f"  {name}: #{submission.pk} {outcome}, overall {overall}")
