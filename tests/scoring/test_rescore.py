"""Re-scoring when a scorer changes (issue 29): a version bump re-scores each out-of-date submission once, keeps
the old score as a ScoreVersion, a failure marks one and the run goes on, and a second run to the same version
scores nothing again. In-process (tasks eager); tests/integration/test_rescore_worker.py does it with real workers."""
from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from scoring import pipeline, rescore, tasks
from scoring.errors import ServiceRefusal
from scoring.events import score_rescored
from scoring.models import RescoreItem, RescoreRun, SampleScore, Score, ScoreVersion, Submission
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db


def scored_board(split, values_per_model, *, marker=None, options=None) -> list[Submission]:
    """Submissions of the dummy benchmark, scored under its current version (one per list of values)."""
    subs = []
    for i, values in enumerate(values_per_model):
        sub = Submission.objects.create(
            model_entry=ModelEntryFactory(name=f"model-{i}"), split=split, status=Submission.Status.QUEUED,
            options={**({"marker": str(marker)} if marker else {}), **(options or {}).get(i, {})})
        sub.file.save(f"p{i}.txt", ContentFile("\n".join(str(v) for v in values).encode()))
        assert pipeline.submission_score(submission_id=sub.pk, worker="test") == "scored"
        subs.append(sub)
    return subs


@pytest.fixture
def dummy_split(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy", benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def test_a_version_bump_rescores_each_submission_once_and_keeps_the_old_score(dummy_split, monkeypatch, tmp_path,
                                                                               celery_eager,
                                                                               django_capture_on_commit_callbacks):
    marker = tmp_path / "runs.txt"
    subs = scored_board(dummy_split, [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 1]], marker=marker)
    assert marker.read_text().count("completed") == 3
    landed = []
    score_rescored.connect(lambda **kw: landed.append(kw["submission_id"]), weak=False, dispatch_uid="t-rescored")
    try:
        # Given the scorer's version changes (dummy-2 halves every figure)
        monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
        # When the deploy's check runs
        with django_capture_on_commit_callbacks(execute=True):
            runs = rescore.rescore_runs_start_for_changes(enqueue=tasks.rescore_item_enqueue)
    finally:
        score_rescored.disconnect(dispatch_uid="t-rescored")

    # Then each submission is re-scored once, to the new version, its old score kept
    assert len(runs) == 1 and runs[0].scorer_version == "dummy-2"
    assert marker.read_text().count("completed") == 6
    assert sorted(landed) == sorted(s.pk for s in subs)
    for sub, old in zip(subs, (100.0, 50.0, 25.0)):
        score = Score.objects.get(submission=sub)
        assert score.scorer_version == "dummy-2" and score.overall == pytest.approx(old / 2)
        kept = ScoreVersion.objects.get(submission=sub)
        assert kept.scorer_version == "dummy-1" and kept.overall == pytest.approx(old)
        assert kept.split_version == dummy_split.version and kept.run == runs[0]
        assert SampleScore.objects.filter(submission=sub).count() == 4
    runs[0].refresh_from_db()
    assert runs[0].finished_at is not None
    assert set(runs[0].items.values_list("state", flat=True)) == {RescoreItem.State.RESCORED}

    # And the check again finds nothing to do; a forced run to the same version is refused while nothing changed
    assert rescore.rescore_runs_start_for_changes(enqueue=tasks.rescore_item_enqueue) == []
    assert marker.read_text().count("completed") == 6


def test_an_item_claimed_twice_scores_once(dummy_split, monkeypatch, tmp_path):
    marker = tmp_path / "runs.txt"
    (sub,) = scored_board(dummy_split, [[1, 0, 1, 0]], marker=marker)
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    run = rescore.rescore_run_start(benchmark=dummy_split.benchmark)
    item = run.items.get()
    # a duplicate delivery of the message, and a second run to the same version
    assert rescore.rescore_item_run(item_id=item.pk, worker="w1") == "rescored"
    assert rescore.rescore_item_run(item_id=item.pk, worker="w2") == "skipped"
    second = RescoreRun.objects.create(benchmark=dummy_split.benchmark, scorer_version="dummy-2")
    again = RescoreItem.objects.create(run=second, submission=sub)
    assert rescore.rescore_item_run(item_id=again.pk, worker="w3") == "unchanged"
    assert marker.read_text().count("completed") == 2
    assert ScoreVersion.objects.filter(submission=sub).count() == 1


def test_a_stale_lease_is_taken_over_and_the_old_attempt_cannot_publish(dummy_split, monkeypatch, settings):
    (sub,) = scored_board(dummy_split, [[1, 1, 0, 0]])
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    run = rescore.rescore_run_start(benchmark=dummy_split.benchmark)
    item = run.items.get()
    # Given a worker claimed the item and died (its lease is stale)
    RescoreItem.objects.filter(pk=item.pk).update(state=RescoreItem.State.RUNNING, attempts=1, worker="dead",
                                                  heartbeat_at=timezone.now() - timezone.timedelta(hours=1))
    # When the restarted worker sweeps, it sends the item again and scores it
    assert rescore.rescore_items_requeue(worker="dead") == [item.pk]
    assert rescore.rescore_item_run(item_id=item.pk, worker="dead") == "rescored"
    item.refresh_from_db()
    assert item.attempts == 2 and item.state == RescoreItem.State.RESCORED
    assert Score.objects.get(submission=sub).overall == pytest.approx(25.0)


def test_a_failing_rescore_marks_that_one_and_goes_on(dummy_split, monkeypatch, celery_eager,
                                                      django_capture_on_commit_callbacks):
    subs = scored_board(dummy_split, [[1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]],
                        options={1: {"fail_from": "dummy-2"}})
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    with django_capture_on_commit_callbacks(execute=True):
        run = rescore.rescore_run_start(benchmark=dummy_split.benchmark, enqueue=tasks.rescore_item_enqueue)

    states = dict(run.items.values_list("submission_id", "state"))
    assert states == {subs[0].pk: "rescored", subs[1].pk: "failed", subs[2].pk: "rescored"}
    failed = run.items.get(submission=subs[1])
    assert "refused under dummy-2 on purpose" in failed.error_message
    # the failed one keeps its old score, and stays on the board as it was
    assert Score.objects.get(submission=subs[1]).scorer_version == "dummy-1"
    assert Submission.objects.get(pk=subs[1].pk).status == Submission.Status.SCORED
    run.refresh_from_db()
    assert run.finished_at is not None


def test_a_scorer_crash_marks_that_one_failed_after_retries(dummy_split, monkeypatch, celery_eager,
                                                            django_capture_on_commit_callbacks):
    subs = scored_board(dummy_split, [[1, 1, 1, 1], [1, 0, 0, 0]])
    Submission.objects.filter(pk=subs[0].pk).update(options={"crash": True})
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    with django_capture_on_commit_callbacks(execute=True):
        run = rescore.rescore_run_start(benchmark=dummy_split.benchmark, enqueue=tasks.rescore_item_enqueue)
    crashed = run.items.get(submission=subs[0])
    assert crashed.state == "failed" and "RuntimeError" in crashed.error_message
    assert run.items.get(submission=subs[1]).state == "rescored"


def test_reported_rows_are_never_rescored_and_a_run_at_a_time(dummy_split, monkeypatch, curator, user):
    scored_board(dummy_split, [[1, 1, 1, 1]])
    paper = Submission.objects.create(model_entry=ModelEntryFactory(name="paper-model"), split=dummy_split,
                                      source=Submission.Source.REPORTED, status=Submission.Status.SCORED,
                                      scorer_version="paper")
    Score.objects.create(submission=paper, overall=40.0, scorer_version="paper")
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    with pytest.raises(ServiceRefusal) as refused:
        rescore.rescore_run_start(benchmark=dummy_split.benchmark, user=user)
    assert refused.value.status == 403
    run = rescore.rescore_run_start(benchmark=dummy_split.benchmark, user=curator)
    assert paper.pk not in set(run.items.values_list("submission_id", flat=True))
    with pytest.raises(ServiceRefusal) as busy:
        rescore.rescore_run_start(benchmark=dummy_split.benchmark, user=curator)
    assert busy.value.status == 409 and f"#{run.pk}" in busy.value.message


def test_rescore_command_reports_the_run(dummy_split, monkeypatch, capsys):
    scored_board(dummy_split, [[1, 1, 1, 1], [0, 0, 0, 0]])
    call_command("rescore")
    assert "nothing to re-score" in capsys.readouterr().out
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    call_command("rescore", "--here")
    out = capsys.readouterr().out
    assert "2 submission(s): 2 rescored" in out


def new_split_version(split, *, keys=("k0", "k1", "k2", "k3")):
    """The split's next version (as annotation publishing makes one): its own samples (a corrected set)."""
    newer = SplitFactory(benchmark=split.benchmark, name=split.name, version=split.version + 1)
    for i, key in enumerate(keys):
        SampleFactory(split=newer, key=key, position=i)
    return newer


def test_a_new_split_version_scores_the_previous_versions_submissions_onto_it(dummy_split, monkeypatch, tmp_path,
                                                                              celery_eager,
                                                                              django_capture_on_commit_callbacks):
    marker = tmp_path / "runs.txt"
    subs = scored_board(dummy_split, [[1, 1, 1, 1], [1, 1, 0, 0]], marker=marker)
    newer = new_split_version(dummy_split, keys=("k0", "k1"))  # two samples in the new version

    # When the deploy's check (or the publishing) starts the split-version run
    with django_capture_on_commit_callbacks(execute=True):
        (run,) = rescore.rescore_runs_start_for_changes(enqueue=tasks.rescore_item_enqueue)

    # Then each submission has a twin on the new version, scored on its samples; the old ones are untouched
    assert run.reason == RescoreRun.Reason.SPLIT and run.target_split == newer
    assert marker.read_text().count("completed") == 4
    for sub, (old, new) in zip(subs, ((100.0, 100.0), (50.0, 100.0))):
        item = run.items.get(submission=sub)
        carried = item.result
        assert item.state == "rescored" and carried.split == newer and carried.model_entry == sub.model_entry
        assert carried.source == Submission.Source.REPRODUCED and carried.status == Submission.Status.SCORED
        assert Score.objects.get(submission=carried).overall == pytest.approx(new)
        assert SampleScore.objects.filter(submission=carried).count() == 2
        assert f"from submission #{sub.pk}" in carried.note
        assert Score.objects.get(submission=sub).overall == pytest.approx(old)
        assert not ScoreVersion.objects.filter(submission=sub).exists()
    # And nothing is carried twice
    assert rescore.rescore_runs_start_for_changes(enqueue=tasks.rescore_item_enqueue) == []
    assert Submission.objects.filter(split=newer).count() == 2


def test_publishing_a_new_split_version_is_refused_a_second_run_while_one_is_under_way(dummy_split, curator, user):
    scored_board(dummy_split, [[1, 1, 1, 1]])
    newer = new_split_version(dummy_split)
    with pytest.raises(ServiceRefusal):
        rescore.rescore_split_version_start(split=newer, user=user)
    run = rescore.rescore_split_version_start(split=newer, user=curator)
    with pytest.raises(ServiceRefusal) as busy:
        rescore.rescore_split_version_start(split=newer, user=curator)
    assert busy.value.status == 409 and f"#{run.pk}" in busy.value.message
    with pytest.raises(ServiceRefusal) as first:
        rescore.rescore_split_version_start(split=dummy_split)
    assert "no earlier version" in first.value.message
