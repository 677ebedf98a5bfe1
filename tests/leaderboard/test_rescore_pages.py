"""Boards after a scorer version bump (issue 29): the board shows the current scores and keeps the older version
viewable (?scorer=), the diff page lists every row whose score or rank moved and by how much, a paper's rows say
which scorer version they are comparable to, a split version has a board of its own, and curators start a
re-score from a page."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard import versions
from scoring.models import Phase, RescoreRun, Score, ScoreVersion, Split, Submission
from scoring.selectors import board_cache_invalidate

from .conftest import forget_pages, make_entry, make_reported, make_scored, random_scores, rescore_now

pytestmark = pytest.mark.django_db

def test_the_board_shows_current_scores_and_keeps_the_older_version_viewable(client, board, monkeypatch):
    split, subs = board
    rescore_now(split, monkeypatch)

    current = client.get("/leaderboard/dummy/")
    assert current.status_code == 200
    html = current.content.decode()
    nav = re.search(r'id="board-versions".*?</nav>', html, re.S).group(0)
    assert "dummy-1" in nav and "dummy-2 (current)" in nav and "what moved" in nav
    rows = {r.model_name: r.overall for r in current.context["view"].rows}
    assert rows == {"Alpha": 50.0, "Beta": 25.0, "Gamma": 12.5, "Paper-Model": 40.0}

    older = client.get("/leaderboard/dummy/?scorer=dummy-1")
    assert older.status_code == 200
    rows = {r.model_name: (r.overall, r.scorer_version) for r in older.context["view"].rows}
    assert rows == {"Alpha": (100.0, "dummy-1"), "Beta": (50.0, "dummy-1"), "Gamma": (25.0, "dummy-1"),
                    "Paper-Model": (40.0, "paper")}
    export = client.get("/leaderboard/dummy/export.csv?scorer=dummy-1").content.decode()
    assert "Alpha" in export and ",100.0," in export

    unknown = client.get("/leaderboard/dummy/?scorer=dummy-9")
    assert unknown.status_code == 400
    assert "no scores of this board were made under &#x27;dummy-9&#x27;; versions: dummy-1, dummy-2" in \
        unknown.content.decode()


def test_the_diff_page_lists_every_row_whose_score_or_rank_moved(client, board, monkeypatch):
    split, subs = board
    assert client.get("/leaderboard/dummy/diff/").context["rows"] == []  # one version only: nothing to compare
    rescore_now(split, monkeypatch)

    page = client.get("/leaderboard/dummy/diff/")
    assert page.status_code == 200
    assert (page.context["old"], page.context["new"]) == ("dummy-1", "dummy-2")
    html = page.content.decode()
    moved = {int(pk): status for pk, status in re.findall(r'data-submission="(\d+)" data-status="(\w+)"', html)}
    # every upload's figure halved; Beta fell below the paper's row (rank 2 -> 3), the paper's row rose (3 -> 2)
    assert moved == {subs[n].pk: "moved" for n in ("Alpha", "Beta", "Gamma", "Paper")}
    by_key = {r.key: r for r in page.context["rows"]}
    assert by_key[subs["Alpha"].pk].delta == pytest.approx(-50.0)
    assert (by_key[subs["Beta"].pk].old_rank, by_key[subs["Beta"].pk].new_rank) == (2, 3)
    assert (by_key[subs["Paper"].pk].old_rank, by_key[subs["Paper"].pk].new_rank, by_key[subs["Paper"].pk].delta) \
        == (3, 2, 0.0)
    assert "-50.00" in html and "-12.50" in html and "2 → 3" in html
    assert page.context["counts"]["moved"] == 4

    assert client.get("/leaderboard/dummy/diff/?from=dummy-0").status_code == 400


def test_reported_rows_say_which_scorer_version_they_are_comparable_to(client, board, monkeypatch):
    split, subs = board
    rescore_now(split, monkeypatch)
    html = client.get("/leaderboard/dummy/").content.decode()
    note = re.search(r'id="reported-comparable">(.*?)</p>', html, re.S).group(1)
    assert "comparable to scorer version <strong>dummy-1</strong>" in note
    # the loader's own record wins (scoring.published stores the version current when the paper's rows were loaded)
    Score.objects.filter(submission=subs["Paper"]).update(details={"comparable_scorer_version": "dummy-2"})
    forget_pages()
    assert "<strong>dummy-2</strong>" in re.search(r'id="reported-comparable">(.*?)</p>',
                                                   client.get("/leaderboard/dummy/").content.decode(), re.S).group(1)


def test_each_split_version_has_its_own_board(client, board):
    split, subs = board
    newer = Split.objects.create(benchmark=split.benchmark, name="test", version=2, hidden_ground_truth=False)
    make_reported(newer, make_entry("Delta"), 70.0)
    forget_pages()
    newest = client.get("/leaderboard/dummy/?split=test")
    assert newest.context["split"] == newer
    assert [r.model_name for r in newest.context["view"].rows] == ["Delta"]
    first = client.get("/leaderboard/dummy/?split=test&split_version=1")
    assert first.context["split"] == split
    assert "Delta" not in {r.model_name for r in first.context["view"].rows}
    html = first.content.decode()
    assert 'href="?split=test&amp;split_version=1"' in html  # the older version's tab names it
    assert "version 1" in re.search(r'id="split-version">(.*?)</p>', html, re.S).group(1)
    assert client.get("/leaderboard/dummy/?split=test&split_version=7").status_code == 404
    assert client.get("/leaderboard/dummy/?split_version=x").status_code == 400


def test_a_curator_starts_a_rescore_from_the_page(client, board, monkeypatch, curator, user, celery_eager,
                                                  django_capture_on_commit_callbacks):
    split, subs = board
    monkeypatch.setenv("DUMMY_SCORER_VERSION", "dummy-2")
    client.force_login(user)
    assert client.get("/leaderboard/dummy/rescore/").status_code == 404
    assert client.post("/leaderboard/dummy/rescore/").status_code == 404
    client.force_login(curator)
    page = client.get("/leaderboard/dummy/rescore/")
    html = page.content.decode()
    assert 'id="current-version">dummy-2<' in html and 'id="out-of-date">3<' in html

    with django_capture_on_commit_callbacks(execute=True):
        started = client.post("/leaderboard/dummy/rescore/", {"split": "", "force": ""})
    assert started.status_code == 302
    run = RescoreRun.objects.get()
    assert run.started_by == curator and run.reason == "curator" and run.finished_at is not None
    assert sorted(run.items.values_list("state", flat=True)) == ["rescored"] * 3
    html = client.get("/leaderboard/dummy/rescore/").content.decode()
    assert 'id="out-of-date">0<' in html and "3 of 3" in html
    # nothing left to re-score: a second start makes an empty run, finished at once
    client.post("/leaderboard/dummy/rescore/", {"split": ""})
    assert RescoreRun.objects.order_by("-pk").first().items.count() == 0


def test_a_failed_rescore_shows_on_the_page_and_leaves_the_row_on_the_board(client, board, monkeypatch, curator):
    split, subs = board
    Submission.objects.filter(pk=subs["Beta"].pk).update(options={"fail_from": "dummy-2"})
    run = rescore_now(split, monkeypatch)
    assert dict(run.items.values_list("submission_id", "state"))[subs["Beta"].pk] == "failed"
    client.force_login(curator)
    html = client.get("/leaderboard/dummy/rescore/").content.decode()
    assert f"#{subs['Beta'].pk} Beta" in html and "refused under dummy-2 on purpose" in html
    rows = {r.model_name: (r.overall, r.scorer_version) for r in client.get("/leaderboard/dummy/").context["view"].rows}
    assert rows["Beta"] == (50.0, "dummy-1")  # its old score, saying so
    assert rows["Alpha"] == (50.0, "dummy-2")


def test_the_board_api_and_json_export_take_the_version_and_refuse_an_unknown_one(client, board, monkeypatch):
    split, subs = board
    rescore_now(split, monkeypatch)
    api = client.get("/api/leaderboards/dummy/?scorer=dummy-1").json()
    assert {r["model"]["name"]: (r["values"]["overall"], r["scorer_version"]) for r in api["rows"]}["Alpha"] == \
        (100.0, "dummy-1")
    refused = client.get("/api/leaderboards/dummy/?scorer=nope")
    assert refused.status_code == 400 and refused.json()["field"] == "scorer"
    assert "versions: dummy-1, dummy-2" in refused.json()["detail"]
    assert client.get("/api/leaderboards/dummy/?split=test&split_version=3").status_code == 404
    export = client.get("/leaderboard/dummy/export.json?scorer=dummy-1").json()
    assert export["scorer_version"] == "dummy-1" and export["split_version"] == 1
    assert client.get("/leaderboard/dummy/export.json").json()["scorer_version"] is None


def test_the_submission_page_lists_the_scores_a_rescore_replaced(client, board, monkeypatch, curator):
    split, subs = board
    rescore_now(split, monkeypatch)
    client.force_login(curator)
    html = client.get(f"/submissions/{subs['Alpha'].pk}/").content.decode()
    earlier = re.search(r'id="score-versions".*?</details>', html, re.S).group(0)
    assert "Earlier scores (1)" in earlier and "100.00 under scorer dummy-1 on split version 1" in earlier


def test_a_curator_scores_the_previous_versions_submissions_onto_a_new_split_version(
        client, board, curator, celery_eager, django_capture_on_commit_callbacks):
    split, subs = board
    newer = Split.objects.create(benchmark=split.benchmark, name="test", version=2, hidden_ground_truth=False)
    for i in range(2):
        newer.samples.create(key=f"k{i}", position=i)
    client.force_login(curator)
    html = client.get("/leaderboard/dummy/rescore/").content.decode()
    assert "3 submission(s) of the previous version not scored on it yet" in html  # the paper's row is not a file
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post("/leaderboard/dummy/rescore/", {"onto": newer.pk}).status_code == 302
    forget_pages()
    page = client.get("/leaderboard/dummy/?split=test")
    assert page.context["split"] == newer
    # on the new version's own board, scored on its two samples (Gamma answered 1, 0 there)
    assert {r.model_name: r.overall for r in page.context["view"].rows} == {"Alpha": 100.0, "Beta": 100.0,
                                                                           "Gamma": 50.0}
    old = client.get("/leaderboard/dummy/?split=test&split_version=1")
    assert {r.model_name: r.overall for r in old.context["view"].rows}["Gamma"] == 25.0


def test_the_diff_lists_no_upload_held_back_until_its_phase_closes(client, board, monkeypatch):
    # Given a re-scored board whose split is now in a phase that shows uploads' results only at its close
    split, subs = board
    rescore_now(split, monkeypatch)
    uploads = {subs[n].pk for n in ("Alpha", "Beta", "Gamma")}

    def listed() -> set[int]:
        return {row.key for version in ("dummy-1", "dummy-2")
                for row in versions.version_rows(split=split, version=version)}

    assert uploads <= listed()
    held = Phase.objects.create(benchmark=split.benchmark, name="Held", slug="held", results_at_close=True,
                                opens_at=timezone.now() - timedelta(days=2),
                                closes_at=timezone.now() + timedelta(days=1))
    Split.objects.filter(pk=split.pk).update(phase=held)
    forget_pages()
    # When the rows under each version are read, and the diff page asked for the two versions
    # Then no held-back upload is listed, neither its row nor its figures (the paper's row is), and the page names
    # no version of theirs
    assert listed() & uploads == set() and subs["Paper"].pk in listed()
    page = client.get("/leaderboard/dummy/diff/?from=dummy-1&to=dummy-2")
    assert page.status_code == 400 and "versions: none" in page.content.decode()
    # When the phase has closed, they are
    Phase.objects.filter(pk=held.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    forget_pages()
    assert uploads <= listed()
    assert uploads <= {int(pk) for pk in re.findall(r'data-submission="(\d+)"', client.get(
        "/leaderboard/dummy/diff/?from=dummy-1&to=dummy-2").content.decode())}


def test_the_version_selector_is_read_once_per_content_of_the_board_and_names_no_held_back_version(
        client, epic_split, monkeypatch):
    # Given a board of uploads scored here, read once (their neighbours' comparisons made and stored), and the
    # versions' reads counted
    subs = [make_scored(epic_split, make_entry(f"Versioned-VL-{i}"), random_scores(i, 40, 0.3 + i / 10))
            for i in range(3)]
    page = "/leaderboard/epic-bench/"
    for _ in range(2):
        forget_pages()
        assert client.get(page).status_code == 200
    reads = []
    counted = versions.scorer_versions
    monkeypatch.setattr(versions, "scorer_versions", lambda **kw: reads.append(kw) or counted(**kw))
    # When it is read again after a score landed elsewhere (its cached pages left behind, its rows the same)
    board_cache_invalidate(split_id=epic_split.pk)
    assert client.get(page).status_code == 200 and "Versioned-VL-2" in client.get(page).content.decode()
    # Then the versions were not read again
    assert reads == []

    def selector() -> str:
        forget_pages()
        found = re.search(r'id="board-versions".*?</nav>', client.get(page).content.decode(), re.S)
        return found.group(0) if found else ""

    # When an upload scored under another version waits for its phase to close (results at the close)
    held = Phase.objects.create(benchmark=epic_split.benchmark, name="Held", slug="held", results_at_close=True,
                                opens_at=timezone.now() - timedelta(days=2),
                                closes_at=timezone.now() + timedelta(days=1))
    Split.objects.filter(pk=epic_split.pk).update(phase=held)
    score = Score.objects.get(submission=subs[0])
    score.scorer_version = "test-held"
    score.save()
    # Then the board names only the versions of the scores on it (its row is not there yet)
    refused = client.get(page + "?scorer=none")
    # (every upload of the split now waits: the board shows none of them, nor their versions)
    assert refused.status_code == 400 and "; versions: none" in refused.content.decode()
    assert selector() == "" and counted(split=epic_split) == []
    # When the phase has closed: its row and its version are on the board
    Phase.objects.filter(pk=held.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    assert "test-held" in selector()


def test_the_versions_are_counted_from_the_boards_own_columns_as_the_scores_say(client, board, monkeypatch):
    # Given a board re-scored under dummy-2 (three uploads' scores replaced, a paper's row beside them)
    split, subs = board
    rescore_now(split, monkeypatch)
    # When its versions are read
    with CaptureQueriesContext(connection) as captured:
        found = versions.scorer_versions(split=split)
    # Then they are the scores' own: how many current and replaced under each, first made first, the current one marked
    scores = Score.objects.filter(submission__split=split).exclude(submission__source=Submission.Source.REPORTED)
    assert [(v.version, v.scores, v.kept, v.current) for v in found] == [
        ("dummy-1", 0, 3, False), ("dummy-2", scores.filter(scorer_version="dummy-2").count(), 0, True)]
    assert found[1].first_scored == min(s.created_at for s in scores)
    assert found[0].first_scored == min(ScoreVersion.objects.filter(submission__split=split).values_list(
        "scored_at", flat=True))
    # and no query grouped the split's scores by version: they were counted from the columns read with the board's
    # rows (a grouped query over every score of the split was 10-12 ms at 2,000 rows)
    assert not [q["sql"] for q in captured.captured_queries
                if "GROUP BY" in q["sql"] and "MD5(" not in q["sql"] and '"scoring_score"."scorer_version"' in q["sql"]]
