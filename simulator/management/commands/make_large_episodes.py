"""VGE episodes for the large hub (`make_large_hub`, issue 34): 2,000 × scale episodes with their steps.

One episode per task of the scale split (or the demo split) is played for real through the agent API's services
(`episode_start`, `episode_step`) by the demo's careless player, so its state, steps and metrics are the engine's
own; the rest are copies of those, spread over the scale users, with bulk inserts (playing 200,000 episodes through
the services would take hours and measure nothing the speed scripts look at).
"""
from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from scoring.benchmarks.vge.core.demo_agents import careless_agent
from scoring.models import Split
from simulator.engines import engine_with_task
from simulator.models import Episode, Step, Task
from simulator.services.episodes import episode_start, episode_step

EPISODES_PER_SCALE = 2000
BATCH = 2000


class Command(BaseCommand):
    help = "Generate 2,000 × --scale VGE episodes with steps (deterministic), for the speed scripts."

    def add_arguments(self, parser):
        parser.add_argument("--scale", type=int, default=1)
        parser.add_argument("--seed", type=int, default=34)

    def handle(self, *args, scale: int, seed: int, **options):
        rng = random.Random(seed)
        users = list(get_user_model().objects.filter(username__startswith="scale-user-").order_by("username"))
        split = Split.objects.filter(benchmark__slug="vge-bench", name__in=["scale", "demo"]).order_by("-name").first()
        tasks = list(Task.objects.filter(sample__split__name="demo", sample__split__benchmark=split.benchmark)
                     .order_by("task_id")) if split else []
        if not tasks or not users:
            self.stdout.write("make_large_episodes: no VGE demo tasks or no scale users, skipped")
            return
        templates = [self._played(task, users[0], rng) for task in tasks]
        total = EPISODES_PER_SCALE * scale
        episodes: list[Episode] = []
        copies: list[list[Step]] = []
        made = 0
        for n in range(total - len(templates)):
            template, steps = templates[n % len(templates)]
            episodes.append(Episode(
                owner=users[n % len(users)], task_id=template.task_id, kind=template.kind, state=template.state,
                finished=template.finished, success=template.success, metrics=template.metrics,
                perturbation=template.perturbation, lam=template.lam))
            copies.append(steps)
            if len(episodes) >= BATCH:
                made += self._insert(episodes, copies)
                episodes, copies = [], []
        made += self._insert(episodes, copies)
        self.stdout.write(f"make_large_episodes: {len(templates) + made} episodes "
                          f"({len(templates)} played, {made} copied)")

    def _played(self, task: Task, user, rng: random.Random) -> tuple[Episode, list[Step]]:
        engine, core = engine_with_task(task)
        episode, _ = episode_start(user=user, task_id=task.task_id)
        for output in careless_agent(engine, core, rng):
            _, state = episode_step(episode_id=episode.pk, user=user, output=output)
            if state["done"]:
                break
        episode.refresh_from_db()
        return episode, list(episode.steps.order_by("index"))

    @staticmethod
    @transaction.atomic
    def _insert(episodes: list[Episode], copies: list[list[Step]]) -> int:
        Episode.objects.bulk_create(episodes)
        Step.objects.bulk_create([
            Step(episode=episode, index=s.index, raw_output=s.raw_output, parsed_action=s.parsed_action,
                 outcome=s.outcome)
            for episode, steps in zip(episodes, copies) for s in steps], batch_size=BATCH)
        return len(episodes)
