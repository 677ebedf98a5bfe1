"""Frozen, citable board snapshots (issue 29): a curator freezes a board (split version, scorer version, filters)
into a permalink with its CSV and JSON, their SHA-256 and a BibTeX entry; a re-score changes none of it, and the
page says a newer score exists."""
from __future__ import annotations

import hashlib
import json
import re
from datetime import date

import pytest
from django.db.models import RestrictedError

from leaderboard.core.citation import SnapshotCitation, bibtex
from leaderboard.models import BoardSnapshot

from .conftest import forget_pages, rescore_now

pytestmark = pytest.mark.django_db


def freeze(client, **fields):
    return client.post("/leaderboard/dummy/snapshots/", fields)


def test_a_curator_freezes_a_board_into_a_citable_permalink(client, board, curator):
    split, subs = board
    client.force_login(curator)
    made = freeze(client, board="split=test&kind=open-source", name="camera-ready", title="Our paper's table")
    assert made.status_code == 302 and made["Location"] == "/leaderboard/dummy/snapshots/camera-ready/"
    snapshot = BoardSnapshot.objects.get()
    assert (snapshot.split, snapshot.scorer_version, snapshot.query) == (split, "", "kind=open-source")

    client.logout()  # the permalink is for everyone
    page = client.get("/leaderboard/dummy/snapshots/camera-ready/")
    assert page.status_code == 200
    html = page.content.decode()
    assert snapshot.content_sha256 in html
    assert "@misc{ebh-dummy-camera-ready," in html and "Our paper" in html
    assert re.search(r"howpublished = \{\\url\{http://testserver/leaderboard/dummy/snapshots/camera-ready/\}\}", html)
    as_json = client.get("/leaderboard/dummy/snapshots/camera-ready/snapshot.json")
    assert hashlib.sha256(as_json.content).hexdigest() == snapshot.content_sha256
    assert as_json["X-Content-SHA256"] == snapshot.content_sha256
    document = json.loads(as_json.content)
    assert (document["split"], document["split_version"], document["filters"]) == ("test", 1, "kind=open-source")
    assert [(r["model"], r["overall"]) for r in document["rows"]] == [
        ("Alpha", 100.0), ("Beta", 50.0), ("Paper-Model", 40.0), ("Gamma", 25.0)]
    as_csv = client.get("/leaderboard/dummy/snapshots/camera-ready/snapshot.csv")
    assert hashlib.sha256(as_csv.content).hexdigest() == snapshot.csv_sha256
    assert as_csv.content.decode().splitlines()[1].startswith("1,Alpha,")
    assert "camera-ready" in client.get("/leaderboard/dummy/snapshots/").content.decode()


def test_a_snapshot_is_unchanged_after_a_rescore_and_says_a_newer_score_exists(client, board, curator, monkeypatch):
    split, subs = board
    client.force_login(curator)
    freeze(client, board="", name="before")
    json_before = client.get("/leaderboard/dummy/snapshots/before/snapshot.json").content
    csv_before = client.get("/leaderboard/dummy/snapshots/before/snapshot.csv").content
    assert 'id="snapshot-newer"' not in client.get("/leaderboard/dummy/snapshots/before/").content.decode()

    # When the scorer's version changes and the board is re-scored
    rescore_now(split, monkeypatch)

    # Then the live board moved, the snapshot did not, and its page says newer scores exist
    live = {r.model_name: r.overall for r in client.get("/leaderboard/dummy/").context["view"].rows}
    assert live["Alpha"] == 50.0
    assert client.get("/leaderboard/dummy/snapshots/before/snapshot.json").content == json_before
    assert client.get("/leaderboard/dummy/snapshots/before/snapshot.csv").content == csv_before
    snapshot = BoardSnapshot.objects.get(name="before")
    assert hashlib.sha256(json_before).hexdigest() == snapshot.content_sha256
    html = client.get("/leaderboard/dummy/snapshots/before/").content.decode()
    newer = re.search(r'id="snapshot-newer".*?</div>', html, re.S).group(0)
    assert "for 3 row(s)" in newer
    assert f"#{subs['Alpha'].pk} Alpha: frozen under dummy-1, now 50.00 under dummy-2" in newer
    assert re.search(r"<td>Alpha</td>.*?<td>100.0</td>", html, re.S)  # the frozen figure still shown

    # And a snapshot of an older scorer version can still be frozen after the re-score
    freeze(client, board="scorer=dummy-1", name="old-scorer")
    old = json.loads(client.get("/leaderboard/dummy/snapshots/old-scorer/snapshot.json").content)
    assert old["scorer_version"] == "dummy-1"
    assert {r["model"]: r["overall"] for r in old["rows"]}["Alpha"] == 100.0


def test_freezing_is_for_curators_and_names_are_never_reused(client, board, user, curator):
    client.force_login(user)
    assert freeze(client, board="", name="mine").status_code == 403
    client.force_login(curator)
    assert freeze(client, board="", name="first").status_code == 302
    again = freeze(client, board="", name="first")
    assert again.status_code == 409 and "exists already" in again.content.decode()
    bad = freeze(client, board="", name="Not A Name!")
    assert bad.status_code == 400 and "is not a snapshot name" in bad.content.decode()
    assert freeze(client, board="scorer=nope", name="x").status_code == 400
    dated = freeze(client, board="", name="")
    assert re.fullmatch(r"/leaderboard/dummy/snapshots/\d{4}-\d{2}-\d{2}/", dated["Location"])
    assert client.get("/leaderboard/dummy/snapshots/missing/").status_code == 404
    assert client.get("/leaderboard/dummy/snapshots/first/snapshot.xml").status_code == 404
    forget_pages()


def test_bibtex_escapes_what_would_end_the_entry():
    entry = bibtex(SnapshotCitation(
        benchmark_slug="epic-bench", benchmark_name="EPIC {Bench} 100% & more", snapshot_name="2026-12-03",
        split="test", split_version=2, scorer_version="epic-1.1", url="https://hub.example/x}/",
        content_sha256="ab" * 32, frozen_on=date(2026, 12, 3)))
    assert entry.startswith("@misc{ebh-epic-bench-2026-12-03,\n")
    assert r"EPIC \{Bench\} 100\% \& more leaderboard (split test v2, scorer epic-1.1)" in entry
    assert "year = 2026" in entry and "month = dec" in entry
    assert r"\url{https://hub.example/x%7D/}" in entry
    unescaped = entry.replace(r"\{", "").replace(r"\}", "")
    assert unescaped.count("{") == unescaped.count("}")


def test_a_split_a_snapshot_cites_is_not_deleted_alone(client, board, curator):
    split, subs = board
    client.force_login(curator)
    freeze(client, board="", name="cited")
    with pytest.raises(RestrictedError):
        split.delete()
    split.benchmark.delete()  # the benchmark goes with its splits and their snapshots
    assert not BoardSnapshot.objects.exists()
