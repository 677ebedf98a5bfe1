"""The human baseline: a stratified baseline set chosen by curators, the next episode for a player, and the
"Human (site players)" row computed from finished episodes by the same metric code as scored logs."""
from __future__ import annotations

import copy

import pytest

from scoring.benchmarks.vge.core.baseline import Candidate, stratified_pick
from scoring.benchmarks.vge.core.metrics import METRICS, summarise
from scoring.benchmarks.vge.core.replay import replay
from scoring.models import ModelEntry, SampleScore, Submission
from simulator import engines, human_board
from simulator.engines import EpisodeError
from simulator.human_board import DEMO_SPLIT
from simulator.models import Episode, Task
from simulator.services.baseline import baseline_mark, baseline_next_episode
from simulator.services.episodes import episode_give_up, episode_start, episode_step
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

OPEN_DASH = "Switch_view(coord=[800, 200])"
PRESS_POWER = "Press(coord=[200, 300], params=[0])"
MISS = "Press(coord=[5, 5], params=[0])"


@pytest.fixture
def tiny_demo(db):
    """The tiny device's tasks in split vge-bench/demo (where the Human row lives): one single-goal stratum
    (t1, t3) and one multi-goal stratum (t2)."""
    device_upsert(data=copy.deepcopy(TINY), source="test")
    split = split_ensure(name=DEMO_SPLIT, public=True)
    tasks = [make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2"),
             make_task(("idle",), "tiny/t3", lam=3)]
    tasks_into_split(tasks=tasks, split=split)
    return split


def play(user, task_id: str, outputs: list[str]) -> Episode:
    episode, _ = episode_start(user=user, task_id=task_id, kind=Episode.Kind.HUMAN)
    for output in outputs:
        episode_step(episode_id=episode.pk, user=user, output=output)
    episode.refresh_from_db()
    return episode


# -- the pick --------------------------------------------------------------------------------------------
def candidates() -> list[Candidate]:
    out = []
    for category in ("Kettle", "Microwave", "Toaster"):
        for n in range(6):
            out.append(Candidate(f"{category.lower()}-{n}/t", category, 1 + n % 2))
    return out


def test_the_pick_takes_the_same_number_from_every_stratum_and_interleaves_them():
    order = stratified_pick(candidates(), per_stratum=2, seed=0)
    by_id = {c.task_id: c for c in candidates()}
    assert len(order) == 12 and len(set(order)) == 12
    strata = [by_id[t].stratum for t in order]
    assert strata[:6] == sorted(set(strata))  # round one visits every stratum once, in name order
    assert sorted(strata[6:]) == sorted(set(strata))


def test_the_pick_is_deterministic_and_the_seed_changes_it():
    assert stratified_pick(candidates(), per_stratum=1, seed=3) == stratified_pick(list(reversed(candidates())), per_stratum=1, seed=3)
    picks = {tuple(stratified_pick(candidates(), per_stratum=1, seed=s)) for s in range(8)}
    assert len(picks) > 1


def test_a_stratum_smaller_than_asked_gives_what_it_has():
    few = [Candidate("a/t1", "A", 1), Candidate("b/t1", "B", 1), Candidate("b/t2", "B", 1)]
    assert sorted(stratified_pick(few, per_stratum=5, seed=0)) == ["a/t1", "b/t1", "b/t2"]


# -- marking and playing -------------------------------------------------------------------------------------
def test_only_curators_mark_the_baseline_set(tiny_demo, user, curator):
    with pytest.raises(EpisodeError, match="Only curators"):
        baseline_mark(user=user)
    marked = baseline_mark(user=curator, per_stratum=1, seed=0)
    assert len(marked) == 2 and {t.goals_count for t in marked} == {1, 2}
    assert [t.baseline_rank for t in marked] == [1, 2]
    # marking again replaces the set
    baseline_mark(user=curator, per_stratum=2, seed=0)
    assert Task.objects.filter(baseline_rank__isnull=False).count() == 3


def test_a_player_gets_the_next_baseline_task_not_played_and_resumes_a_running_one(tiny_demo, user, curator, celery_eager):
    baseline_mark(user=curator, per_stratum=2, seed=0)
    first = baseline_next_episode(user=user)
    assert first.task.baseline_rank == 1 and first.kind == Episode.Kind.HUMAN
    assert baseline_next_episode(user=user).pk == first.pk  # running: resumed, not a new one
    episode_give_up(episode_id=first.pk, user=user)  # an explicit give-up counts as played
    second = baseline_next_episode(user=user)
    assert second.task.baseline_rank == 2
    episode_give_up(episode_id=second.pk, user=user)
    third = baseline_next_episode(user=user)
    episode_give_up(episode_id=third.pk, user=user)
    assert baseline_next_episode(user=user) is None


# -- the Human row -----------------------------------------------------------------------------------------
def test_finished_baseline_episodes_make_the_human_row_with_the_same_metric_code(
    tiny_demo, user, other_user, curator, celery_eager, django_capture_on_commit_callbacks
):
    baseline_mark(user=curator, per_stratum=2, seed=0)
    outputs = {
        (user, "tiny/t1"): [OPEN_DASH, PRESS_POWER],
        (user, "tiny/t2"): [MISS, OPEN_DASH, PRESS_POWER],
        (other_user, "tiny/t1"): [MISS, MISS, OPEN_DASH, PRESS_POWER],
    }
    with django_capture_on_commit_callbacks(execute=True):
        for (player, task_id), outs in outputs.items():
            play(player, task_id, outs)
        episode_give_up(episode_id=Episode.objects.get(owner=user, task__task_id="tiny/t2").pk, user=user)
        # running, not given up: not part of the row (the player may come back to it)
        play(other_user, "tiny/t2", [MISS])
    submission = Submission.objects.get(model_entry__slug=human_board.HUMAN_ENTRY_SLUG)
    assert submission.model_entry.kind == ModelEntry.Kind.HUMAN and submission.status == Submission.Status.SCORED
    assert submission.split == tiny_demo and submission.source == Submission.Source.UPLOAD
    score = submission.score
    assert set(score.breakdown) == set(METRICS) and len(METRICS) == 12
    assert score.details == {"episodes": 3, "players": 2}
    assert "3 episodes by 2 players" in submission.note
    assert "3 episodes by 2 players" in ModelEntry.objects.get(slug=human_board.HUMAN_ENTRY_SLUG).description

    # the same figures as replaying the same outputs through the engine and the core metrics
    expected = []
    for (_player, task_id), outs in outputs.items():
        task = Task.objects.get(task_id=task_id)
        engine, core = engines.engine_with_task(task)
        expected.append(replay(engine, core, outs).metrics)
    assert score.breakdown == pytest.approx(summarise(expected), nan_ok=True)
    assert score.overall == pytest.approx(200 / 3)

    samples = list(SampleScore.objects.filter(submission=submission).order_by("index"))
    assert sorted(s.outcome for s in samples) == ["gave_up", "success", "success"]
    assert all(s.details["trace"] and "episode" in s.details for s in samples)


def test_the_human_row_is_updated_in_place_and_shows_on_the_board(tiny_demo, user, curator, celery_eager, client,
                                                                    django_capture_on_commit_callbacks):
    baseline_mark(user=curator, per_stratum=2, seed=0)
    with django_capture_on_commit_callbacks(execute=True):
        play(user, "tiny/t1", [OPEN_DASH, PRESS_POWER])
    first = Submission.objects.get(model_entry__slug=human_board.HUMAN_ENTRY_SLUG)
    assert first.score.details == {"episodes": 1, "players": 1}
    with django_capture_on_commit_callbacks(execute=True):
        play(user, "tiny/t3", [MISS] * 6)  # lambda 3, L_opt 2: out of turns after 6 misses
    rows = Submission.objects.filter(model_entry__slug=human_board.HUMAN_ENTRY_SLUG)
    assert rows.count() == 1 and rows.get().pk == first.pk
    page = client.get("/leaderboard/vge-bench/?split=demo")
    assert page.status_code == 200 and "Human (site players)" in page.content.decode()


def test_a_human_row_of_one_episode_says_1_episode_with_no_interval_and_no_rank(
        tiny_demo, user, curator, celery_eager, client, django_capture_on_commit_callbacks):
    baseline_mark(user=curator, per_stratum=2, seed=0)
    with django_capture_on_commit_callbacks(execute=True):
        play(user, "tiny/t1", [OPEN_DASH, PRESS_POWER])  # solved: 100 on SR
    submission = Submission.objects.get(model_entry__slug=human_board.HUMAN_ENTRY_SLUG)
    assert submission.note.startswith("1 episode by 1 player ")
    assert submission.score.intervals == {}
    page = client.get("/leaderboard/vge-bench/?split=demo")
    html = page.content.decode()
    assert "1 episode by 1 player" in html and "100.00–100.00" not in html
    view = page.context["view"]
    human = [rank for rank, row in zip(view.ranks, view.rows) if row.kind == "human"]
    assert human == [None]
    assert submission.pk not in view.ties


def test_a_second_try_at_a_task_is_not_a_baseline_episode(tiny_demo, user, curator, celery_eager,
                                                         django_capture_on_commit_callbacks):
    baseline_mark(user=curator, per_stratum=2, seed=0)
    with django_capture_on_commit_callbacks(execute=True):
        play(user, "tiny/t1", [MISS] * 10)  # fails
        play(user, "tiny/t1", [OPEN_DASH, PRESS_POWER])  # knows the device now
    score = Submission.objects.get(model_entry__slug=human_board.HUMAN_ENTRY_SLUG).score
    assert score.details["episodes"] == 1 and score.overall == 0


def test_the_curator_page_marks_the_set_and_others_are_refused(tiny_demo, client, user, curator):
    client.force_login(user)
    assert client.get("/simulator/baseline/").status_code == 403
    client.force_login(curator)
    response = client.post("/simulator/baseline/", {"per_stratum": "1", "seed": "4"}, follow=True)
    assert response.status_code == 200 and "The baseline set now has 2 tasks" in response.content.decode()
    assert Task.objects.filter(baseline_rank__isnull=False).count() == 2
    bad = client.post("/simulator/baseline/", {"per_stratum": "0", "seed": "4"}, follow=True)
    assert "choose 1 to 20 tasks per stratum" in bad.content.decode()


def test_the_next_baseline_page_sends_the_player_to_the_play_page(tiny_demo, client, user, curator):
    baseline_mark(user=curator, per_stratum=1, seed=0)
    client.force_login(user)
    response = client.get("/simulator/baseline/next/")
    episode = Episode.objects.get(owner=user)
    assert response.status_code == 302 and response["Location"] == f"/simulator/episodes/{episode.pk}/play/"
    assert episode.task.baseline_rank == 1


def test_the_admin_filters_the_baseline_set_and_can_choose_it(tiny_demo, client, django_user_model):
    admin_user = django_user_model.objects.create_superuser("root", password="pw-root-123")
    client.force_login(admin_user)
    url = "/admin/simulator/task/"
    response = client.post(url, {"action": "mark_baseline_set", "_selected_action": [Task.objects.first().pk]}, follow=True)
    assert "The baseline set now has 2 tasks." in response.content.decode()
    listed = client.get(url + "?baseline=yes").content.decode()
    assert "tiny/t2" in listed and listed.count('class="field-task_id"') == 2


def test_every_split_that_humans_play_gets_its_human_row(tiny_demo, user, curator, celery_eager, client,
                                                       django_capture_on_commit_callbacks):
    """Issue 28: "The human baseline is tied to the `demo` split (`DEMO_SPLIT`); any split that humans play gets
    its Human row." A second split's baseline episodes make that split's row; the demo split keeps its own."""
    second = split_ensure(name="second", public=True)
    tasks_into_split(tasks=[make_task(("idle",), "tiny/s1"), make_task(("idle", "heating"), "tiny/s2")],
                     split=second)
    baseline_mark(user=curator, per_stratum=2, seed=0)
    baseline_mark(user=curator, per_stratum=2, seed=0, split=second)
    assert Task.objects.filter(baseline_rank__isnull=False).count() == 5  # marking one split keeps the other's set
    with django_capture_on_commit_callbacks(execute=True):
        play(user, "tiny/t1", [OPEN_DASH, PRESS_POWER])
        play(user, "tiny/s1", [OPEN_DASH, PRESS_POWER])
        play(user, "tiny/s2", [MISS] * 10)
    rows = {s.split.name: s for s in Submission.objects.filter(model_entry__slug=human_board.HUMAN_ENTRY_SLUG)}
    assert set(rows) == {DEMO_SPLIT, "second"}
    assert rows["second"].score.details == {"episodes": 2, "players": 1} and rows["second"].score.overall == 50
    assert rows[DEMO_SPLIT].score.details == {"episodes": 1, "players": 1} and rows[DEMO_SPLIT].score.overall == 100
    assert sorted(SampleScore.objects.filter(submission=rows["second"]).values_list("key", flat=True)) == [
        "tiny/s1", "tiny/s2"]
    for name in (DEMO_SPLIT, "second"):
        page = client.get(f"/leaderboard/vge-bench/?split={name}")
        view = page.context["view"]
        assert page.status_code == 200 and [row.kind for row in view.rows].count("human") == 1
        assert rows[name].note in page.content.decode()
    description = ModelEntry.objects.get(slug=human_board.HUMAN_ENTRY_SLUG).description
    assert "demo: 1 episode by 1 player" in description and "second: 2 episodes by 1 player" in description


def test_episodes_played_with_other_options_are_free_play_outside_the_baseline(tiny_demo, user, curator,
                                                                                celery_eager):
    """An episode played with another λ or rephrased instructions is not a baseline episode: it is never resumed
    as one, leaves its task in the player's baseline queue and never enters the Human row."""
    baseline_mark(user=curator, per_stratum=2, seed=0)
    first = Task.objects.filter(baseline_rank__isnull=False).order_by("baseline_rank").first()
    other, _ = episode_start(user=user, task_id=first.task_id, kind=Episode.Kind.HUMAN, lam=2)
    rephrased, _ = episode_start(user=user, task_id=first.task_id, kind=Episode.Kind.HUMAN, instruction="rephrased")
    for episode in (other, rephrased):
        episode_step(episode_id=episode.pk, user=user, output=OPEN_DASH)
        episode_give_up(episode_id=episode.pk, user=user)
    assert Episode.objects.filter(pk__in=[other.pk, rephrased.pk], finished=True).count() == 2
    assert human_board.human_baseline_episodes(split=tiny_demo) == []
    nxt = baseline_next_episode(user=user)
    assert nxt.task_id == first.pk and nxt.pk not in (other.pk, rephrased.pk) and nxt.lam is None
