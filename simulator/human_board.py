"""The "Human (site players)" row of each VGE board that people played: the baseline episodes it is made of and
its recomputation, which the Celery task runs after a baseline episode ends or the baseline set changes. Every split
with finished human baseline episodes (an episode's split: its task's sample's split) gets its own row; the demo
split is only where `make_demo_vge` and the curator page choose the baseline set by default.

Below `simulator.services` and `simulator.tasks`: services queue the task, the task calls `human_board_refresh`.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from scoring.benchmarks.vge.core.engine import StepOutcome
from scoring.benchmarks.vge.core.metrics import METRICS, bootstrap_intervals, episode_metrics, summarise
from scoring.benchmarks.vge.plugin import SLUG as BENCHMARK_SLUG
from scoring.core.contract import SampleResult, ScoringResult
from scoring.core.stats import DEFAULT_SEED, resample_indices
from scoring.models import ModelEntry, Split, Submission
from scoring.pipeline import score_publish
from scoring.selectors import board_cache_invalidate
from simulator.engines import engine_with_task
from simulator.models import BASELINE_OPTIONS, Episode

HUMAN_ENTRY_NAME = "Human (site players)"
HUMAN_ENTRY_SLUG = "human-site-players"
HUMAN_SCORER_VERSION = "vge-1.0+human"
DEMO_SPLIT = "demo"


def demo_split() -> Split | None:
    return (
        Split.objects.filter(benchmark__slug=BENCHMARK_SLUG, name=DEMO_SPLIT).order_by("-version").first()
    )


def human_baseline_episodes(*, split: Split) -> list[Episode]:
    """What the Human row is made of: each player's first finished episode on each baseline task of the split
    (a second try at a task a player already knows is not a baseline episode)."""
    first: dict[tuple[int, int], Episode] = {}
    rows = (
        Episode.objects.filter(kind=Episode.Kind.HUMAN, finished=True, owner__isnull=False,
                               task__baseline_rank__isnull=False, task__sample__split=split, **BASELINE_OPTIONS)
        .select_related("task__device", "task__sample")
        .order_by("created_at", "pk")
    )
    for episode in rows:
        first.setdefault((episode.owner_id, episode.task_id), episode)
    return sorted(first.values(), key=lambda e: (e.task.baseline_rank or 0, e.pk))


def human_board_splits() -> list[Split]:
    """The VGE splits that have a Human row to (re)compute: a finished human episode on a baseline task of the
    split, or a Human row already there (to update or remove)."""
    played = Episode.objects.filter(kind=Episode.Kind.HUMAN, finished=True, owner__isnull=False,
                                    task__baseline_rank__isnull=False, **BASELINE_OPTIONS).values("task__sample__split")
    shown = Submission.objects.filter(model_entry__slug=HUMAN_ENTRY_SLUG).values("split")
    return list(
        Split.objects.filter(benchmark__slug=BENCHMARK_SLUG).filter(Q(pk__in=played) | Q(pk__in=shown))
        .order_by("name", "version")
    )


def human_board_refresh() -> list[Submission]:
    """(Re)compute the Human row of every VGE split people played (`human_board_splits`); the rows left."""
    rows = [human_board_refresh_split(split=split) for split in human_board_splits()]
    return [row for row in rows if row is not None]


def _entry_description(entry: ModelEntry) -> str:
    """What the Human entry says: each split's note (the demo split alone reads as it always did)."""
    rows = list(Submission.objects.filter(model_entry=entry).select_related("split").order_by("split__name", "pk"))
    if len(rows) == 1 and rows[0].split.name == DEMO_SPLIT:
        return f"Signed-in site players on the human baseline set of the demo split: {rows[0].note}."
    if not rows:
        return "Signed-in site players on the human baseline set of a split."
    notes = "; ".join(f"{r.split.name}: {r.note}" for r in rows)
    return f"Signed-in site players on the human baseline sets of their splits ({notes})."


def human_board_refresh_split(*, split: Split) -> Submission | None:
    """(Re)compute the "Human (site players)" row of one VGE split's board from its baseline episodes, with the
    same metric code as every scored log, published by the same pipeline step. One submission per split, updated
    in place; removed when no episode is left."""
    episodes = human_baseline_episodes(split=split)
    entry, _ = ModelEntry.objects.get_or_create(
        name=HUMAN_ENTRY_NAME, thinking=ModelEntry.Thinking.UNKNOWN,
        defaults={"slug": HUMAN_ENTRY_SLUG, "kind": ModelEntry.Kind.HUMAN, "organisation": "Embodied Bench Hub",
                  "description": "Signed-in site players on the human baseline set of the demo split."},
    )
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update()
            .filter(model_entry=entry, split=split, source=Submission.Source.UPLOAD).order_by("pk").first()
        )
        if not episodes:
            if submission is not None:
                split_id = submission.split_id
                submission.delete()
                ModelEntry.objects.filter(pk=entry.pk).update(description=_entry_description(entry))
                transaction.on_commit(lambda: board_cache_invalidate(split_id=split_id))
            return None
        metrics, samples = [], []
        for index, episode in enumerate(episodes):
            engine, core = engine_with_task(episode.task)
            outcomes = [StepOutcome.from_dict(o) for o in episode.steps.order_by("index").values_list("outcome", flat=True)]
            m = episode_metrics(engine, core, outcomes)
            metrics.append(m)
            samples.append(SampleResult(
                index=index, key=episode.task.task_id[:300],
                task=(episode.task.sample.task if episode.task.sample else "")[:100],
                score=m.values["SR"], outcome="gave_up" if episode.gave_up else ("success" if m.success else "failed"),
                components={**m.values, "goals_reached": m.goals_reached, "turns": m.turns},
                details={"task": core.as_dict(), "episode": episode.pk, "player": episode.owner_id, "l_opt": m.l_opt,
                         "final": episode.state, "gave_up": episode.gave_up, "trace": [o.as_dict() for o in outcomes]},
            ))
        breakdown = summarise(metrics)
        players = len({e.owner_id for e in episodes})
        n = len(episodes)
        note = (f"{n} episode{'s' if n != 1 else ''} by {players} player{'s' if players != 1 else ''} "
                "(human baseline, played in the browser)")
        now = timezone.now()
        if submission is None:
            submission = Submission.objects.create(
                model_entry=entry, split=split, source=Submission.Source.UPLOAD, status=Submission.Status.SCORED,
                scorer_version=HUMAN_SCORER_VERSION, note=note, started_at=now,
            )
        else:
            Submission.objects.filter(pk=submission.pk).update(note=note)
        ModelEntry.objects.filter(pk=entry.pk).update(description=_entry_description(entry))
        score_publish(submission=submission, result=ScoringResult(
            overall=breakdown["SR"],
            breakdown={k: breakdown[k] for k in METRICS},
            samples=samples,
            scorer_version=HUMAN_SCORER_VERSION,
            # One episode has no spread to resample: its "interval" would be the figure twice.
            intervals=bootstrap_intervals(metrics, resample_indices=resample_indices, seed=DEFAULT_SEED)
            if len(episodes) > 1 else {},
            details={"episodes": len(episodes), "players": players},
        ))
    return submission
