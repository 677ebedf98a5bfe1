"""`python manage.py make_demo_epic`: the EPIC-Bench demo split and baseline submissions. Deterministic, idempotent.

Draws synthetic scenes covering all 23 leaves (scoring.benchmarks.epic.core.demo), writes them in the toolkit's raw layout
under var/demo/epic, imports them as split `demo` (public GT) of `epic-bench`, and submits an oracle, a noisy
and a random baseline as raw responses, scored at once through the normal pipeline. Then the test phase's split
`demo-test`: other scenes (seed + 1, one per leaf) with hidden ground truth, and the noisy baseline on it. The two
splits are the demo's Development and Test phases (`scoring.services.demo_phases_ensure`).
"""
from __future__ import annotations

import json

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand

from scoring import services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.importer import epic_split_import

DEMO_SEED = 2026
PER_LEAF = 3
TEST_SEED = DEMO_SEED + 1
TEST_PER_LEAF = 1
TEST_SPLIT = "demo-test"
DEMO_MODELS = (
    ("epic-demo-oracle", "EPIC demo: box oracle", "Tight boxes around every GT instance, exact counts and flags."),
    ("epic-demo-noisy", "EPIC demo: noisy", "The oracle with jittered boxes, off-by-one counts and some refusals."),
    ("epic-demo-random", "EPIC demo: random", "Random boxes, counts, points and flags (seeded)."),
)


def demo_responses(slug: str, samples: list[demo.DemoSample]) -> str:
    rng = np.random.default_rng(DEMO_SEED + sum(map(ord, slug)))
    lines = []
    for s in samples:
        if slug.endswith("oracle"):
            response = demo.oracle_response(s)
        elif slug.endswith("noisy"):
            response = demo.noisy_response(s, rng)
        else:
            response = demo.random_response(s, rng)
        lines.append(json.dumps(demo.raw_line(s, response), ensure_ascii=False))
    return "\n".join(lines) + "\n"


class Command(BaseCommand):
    help = "Create the EPIC-Bench demo split (synthetic scenes, all 23 leaves) and baseline submissions (idempotent)."

    def handle(self, *args, **options):
        root = settings.VAR_DIR / "demo" / "epic"
        samples = demo.make_split(DEMO_SEED, per_leaf=PER_LEAF)
        demo.write_layout(root, samples)
        split, report = epic_split_import(
            path=root, split_name="demo", hidden=False,
            description=f"Synthetic EPIC-style scenes (seed {DEMO_SEED}), {PER_LEAF} per leaf task, public ground truth.",
        )
        self.stdout.write(f"{split}: {report.created} created, {report.updated} updated, {report.unchanged} unchanged, "
                          f"{report.images_stored} images stored, {len(report.problems)} problems")
        for problem in report.problems:
            self.stderr.write(f"problem: {problem}")
        for slug, name, description in DEMO_MODELS:
            submission, outcome = services.demo_submission_ensure(
                split=split, owner_username="epic-demo", slug=slug, name=name, description=description,
                content=lambda slug=slug: demo_responses(slug, samples), options={"raw": True},
            )
            score = getattr(submission, "score", None)
            overall = f"{score.overall:.1f}" if score and score.overall is not None else "-"
            self.stdout.write(f"  {name}: #{submission.pk} {outcome}, status {submission.status}, overall {overall}")
        self._test_phase(split)

    def _test_phase(self, dev):
        root = settings.VAR_DIR / "demo" / "epic-test"
        samples = demo.make_split(TEST_SEED, per_leaf=TEST_PER_LEAF)
        demo.write_layout(root, samples)
        split, report = epic_split_import(
            path=root, split_name=TEST_SPLIT, hidden=True,
            description=f"Synthetic EPIC-style scenes (seed {TEST_SEED}), {TEST_PER_LEAF} per leaf task, hidden "
                        "ground truth: the demo's test phase.",
        )
        self.stdout.write(f"{split}: {report.created} created, {report.updated} updated, {report.unchanged} unchanged, "
                          f"{report.images_stored} images stored, {len(report.problems)} problems")
        for problem in report.problems:
            self.stderr.write(f"problem: {problem}")
        dev_phase, test_phase = services.demo_phases_ensure(benchmark=split.benchmark, dev=dev, test=split)
        self.stdout.write(f"  phases: {dev_phase.name} ({dev.name}), {test_phase.name} ({split.name})")
        slug, name, description = DEMO_MODELS[1]
        submission, outcome = services.demo_submission_ensure(
            split=split, owner_username="epic-demo", slug=slug, name=name, description=description,
            content=lambda: demo_responses(slug, samples), options={"raw": True},
        )
        score = getattr(submission, "score", None)
        overall = f"{score.overall:.1f}" if score and score.overall is not None else "-"
        self.stdout.write(f"  {name}: #{submission.pk} {outcome}, status {submission.status}, overall {overall}")
