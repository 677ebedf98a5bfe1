"""make_demo_vge submits the demo agents' logs and the replay scorer ranks them as their play deserves."""
import pytest
from django.core.management import call_command

from scoring.models import Submission


@pytest.mark.django_db
def test_demo_agents_are_scored_by_replay_and_ranked_by_how_they_play():
    call_command("make_demo_vge")
    scores = {
        s.model_entry.slug: s.score
        for s in Submission.objects.filter(split__benchmark__slug="vge-bench", split__name="demo").select_related("score")
    }
    assert scores["vge-demo-optimal"].overall == pytest.approx(100.0)
    assert scores["vge-demo-optimal"].breakdown["SPL"] == pytest.approx(100.0)
    assert 50.0 < scores["vge-demo-careless"].overall < 100.0
    assert scores["vge-demo-careless"].breakdown["SPL"] < scores["vge-demo-careless"].overall
    assert scores["vge-demo-random"].overall < 10.0
    assert all(score.intervals for score in scores.values())

    call_command("make_demo_vge")  # idempotent: no second submission
    assert Submission.objects.filter(split__benchmark__slug="vge-bench", split__name="demo").count() == 3


@pytest.mark.django_db
def test_make_demo_vge_chooses_a_baseline_set_once_and_keeps_a_curators_choice():
    from simulator.models import Task

    call_command("make_demo_vge", "--no-agents")
    chosen = set(Task.objects.filter(baseline_rank__isnull=False).values_list("task_id", flat=True))
    assert len(chosen) >= 26  # at least one task per category
    removed = sorted(chosen)[:5]
    Task.objects.filter(task_id__in=removed).update(baseline_rank=None)  # a curator's edit
    call_command("make_demo_vge", "--no-agents")
    assert set(Task.objects.filter(baseline_rank__isnull=False).values_list("task_id", flat=True)) == chosen - set(removed)
