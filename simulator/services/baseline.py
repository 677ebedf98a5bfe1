"""The human baseline set: curators mark it, players get its next episode (its row: simulator.human_board)."""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from accounts.roles import is_curator
from scoring.benchmarks.vge.core.baseline import Candidate, stratified_pick
from scoring.models import Split
from simulator.engines import EpisodeError
from simulator.human_board import demo_split
from simulator.models import BASELINE_OPTIONS, Episode, Task
from simulator.services.episodes import episode_start, human_board_refresh_enqueue


def baseline_mark(*, user: AbstractBaseUser, per_stratum: int = 1, seed: int = 0,
                  split: Split | None = None) -> list[Task]:
    """Curators only: make the stratified pick of a split's tasks (the demo split unless told) its baseline set,
    replacing that split's old set; each split's set makes that split's Human row (simulator.human_board)."""
    if not is_curator(user):
        raise EpisodeError("Only curators choose the baseline set.", status=403)
    if not 1 <= per_stratum <= 20:
        raise EpisodeError("per_stratum: choose 1 to 20 tasks per stratum.", status=400)
    split = split or demo_split()
    if split is None:
        raise EpisodeError("There is no vge-bench demo split yet (python manage.py make_demo_vge).", status=400)
    tasks = list(Task.objects.filter(sample__split=split).select_related("device"))
    order = stratified_pick(
        [Candidate(t.task_id, t.device.category, t.goals_count) for t in tasks], per_stratum=per_stratum, seed=seed
    )
    rank = {task_id: i for i, task_id in enumerate(order, start=1)}
    with transaction.atomic():
        Task.objects.filter(baseline_rank__isnull=False, sample__split=split).update(baseline_rank=None)
        changed = []
        for t in tasks:
            if t.task_id in rank:
                t.baseline_rank = rank[t.task_id]
                changed.append(t)
        Task.objects.bulk_update(changed, ["baseline_rank"])
        transaction.on_commit(human_board_refresh_enqueue)
    return sorted(changed, key=lambda t: t.baseline_rank or 0)


def baseline_next_episode(*, user: AbstractBaseUser) -> Episode | None:
    """The player's running baseline episode, else a new one on the first baseline task they have not played
    (finished or given up); None when they have played them all."""
    if not (user and user.is_authenticated):
        raise EpisodeError("Sign in to play the baseline.", status=401)
    # a baseline episode is played with the task's own options (another λ is free play on the same task)
    mine = Episode.objects.filter(owner=user, kind=Episode.Kind.HUMAN, task__baseline_rank__isnull=False,
                                  **BASELINE_OPTIONS)
    running = mine.filter(finished=False).order_by("task__baseline_rank", "pk").first()
    if running is not None:
        return running
    played = mine.filter(finished=True).values_list("task_id", flat=True)
    task = Task.objects.filter(baseline_rank__isnull=False).exclude(pk__in=played).order_by("baseline_rank").first()
    if task is None:
        return None
    episode, _ = episode_start(user=user, task_id=task.task_id, kind=Episode.Kind.HUMAN)
    return episode
