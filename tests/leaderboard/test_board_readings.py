"""Issue 28, "Comparable rows on one board": "EPIC's default mode (deviation B1) scores an unparseable answer on an
empty-ground-truth sample 0 where the toolkit — which produced every reported row — gives 1.0 ... A board must rank
rows scored by one protocol: score uploads the toolkit's way by default so they sit beside the reported rows, keep
the stricter reading as a labelled second figure (or column set) that a reader can switch to, and say on the board
which protocol its numbers use."

Every EPIC upload is scored under both readings; the board, its API and its exports rank by the toolkit's reading
and switch to the strict one with ?reading=strict; rows without strict figures are blank, unranked and say why.
"""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.asgi import _cached
from leaderboard.selectors import board_page_key
from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import Sample, SampleScore, Score, Split, Submission
from tests.leaderboard.conftest import make_entry, make_reported
from tests.leaderboard.test_asgi_fast_path import get, http_scope

pytestmark = pytest.mark.django_db

NOT_REQUIRED = ["Not Required"]
UNPARSEABLE = "I cannot tell from this image."


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()


def demo_samples() -> dict[str, demo.DemoSample]:
    return {s.leaf.name: s for s in demo.make_split(17, per_leaf=1)}


def empty_ground_detection(split: Split, key: str) -> None:
    """The GroundDetection sample's ground truth made empty (no ground visible): a sample with an empty GT."""
    sample = Sample.objects.get(split=split, key=key)
    sample.ground_truth["mask_annotation"]["masklet_ground"] = []
    sample.save(update_fields=["ground_truth"])


@pytest.fixture
def epic_t(tmp_path) -> tuple[Split, dict[str, demo.DemoSample]]:
    samples = demo_samples()
    demo.write_layout(tmp_path, list(samples.values()))
    split, report = epic_split_import(path=tmp_path, split_name="t", hidden=False)
    assert report.problems == []
    empty_ground_detection(split, samples["GroundDetection"].key)
    return split, samples


def std_line(sample: demo.DemoSample, localization, count=NOT_REQUIRED, binary=NOT_REQUIRED) -> dict:
    return {"key": sample.key, "formatted_response_localization": localization, "formatted_response_count": count,
            "formatted_response_path": NOT_REQUIRED, "formatted_response_binary": binary}


def upload(user, split: Split, lines: list[dict], name: str, options=None) -> Submission:
    entry = make_entry(name)
    body = "\n".join(json.dumps(x) for x in lines).encode()
    submission = services.submission_create(user=user, split=split, model_entry=entry, options=options or {},
                                            uploaded_file=SimpleUploadedFile("pred.jsonl", body))
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    submission.refresh_from_db()
    return submission


def test_an_unparseable_answer_on_an_empty_ground_truth_gets_the_toolkits_1_in_the_headline_and_0_strict(user, epic_t):
    """"EPIC's default mode (deviation B1) scores an unparseable answer on an empty-ground-truth sample 0 where the
    toolkit — which produced every reported row — gives 1.0": an upload is scored the toolkit's way (1.0) in its
    headline, and the strict reading (0, an invalid response) is stored with the same score, per sample only where it
    differs."""
    split, samples = epic_t
    gd = samples["GroundDetection"]
    submission = upload(user, split, [std_line(gd, UNPARSEABLE)], "Unparseable-VL")
    rows = {s.key: s for s in SampleScore.objects.filter(submission=submission)}
    row = rows[gd.key]
    assert (row.score, row.invalid, row.outcome) == (1.0, False, "ok")
    assert row.readings == {"strict": {"score": 0.0, "invalid": True, "outcome": "invalid"}}
    assert all(r.readings == {} for key, r in rows.items() if key != gd.key)  # the rest: the same in both readings

    score = submission.score
    assert score.scorer_version == "epic-1.1" and score.details["mode"] == "toolkit"
    assert score.overall == pytest.approx(100 / len(samples)) and score.breakdown["GD"] == pytest.approx(100)
    strict = score.readings["strict"]
    assert strict["overall"] == 0 and strict["breakdown"]["GD"] == 0
    assert strict["details"]["num_invalid_response"] == score.details["num_invalid_response"] + 1
    assert strict["tells_more"] is False  # a GroundDetection score is its localization alone


def test_the_retired_compat_option_scores_the_same_and_says_so(user, epic_t):
    """"score uploads the toolkit's way by default": the compat option, which chose the toolkit's reading before, no
    longer changes anything, and the score says so."""
    split, samples = epic_t
    line = [std_line(samples["GroundDetection"], UNPARSEABLE)]
    plain = upload(user, split, line, "Plain-VL").score
    compat = upload(user, split, line, "Compat-VL", options={"compat": True}).score
    assert (compat.overall, compat.readings["strict"]["overall"]) == (plain.overall, plain.readings["strict"]["overall"])
    assert "compat option is retired" in compat.details["notes"][0]["message"]
    assert not any("compat" in str(note) for note in plain.details["notes"])


@pytest.fixture
def board(user, epic_t) -> Split:
    """Four rows: an upload whose unparseable answer the toolkit scores 1.0 (first by the headline, last by the strict
    figures), an upload with one partly right box (the same in both readings), a row reported in the paper (the
    toolkit's reading only) and a row scored by epic-1.0's default, i.e. strict, reading (no toolkit figures)."""
    split, samples = epic_t
    upload(user, split, [std_line(samples["GroundDetection"], UNPARSEABLE)], "Unparseable-VL")
    ar = samples["AffordanceRegion"]
    upload(user, split, [std_line(ar, ar.truth["boxes"])], "OneBox-VL")
    make_reported(split, make_entry("Paper-VL"), 50.0, {"GD": 40.0})
    old = Submission.objects.create(model_entry=make_entry("OldStrict-VL"), split=split,
                                    status=Submission.Status.SCORED, scorer_version="epic-1.0 (default)")
    Score.objects.create(submission=old, overall=10.0, breakdown={"overall": 10.0}, scorer_version="epic-1.0 (default)")
    return split


def ranked(body: dict) -> list[tuple[str, int | None, str]]:
    return [(r["model"]["name"], r["rank"], r["reading_note"]) for r in body["rows"]]


def test_the_board_ranks_by_the_headline_and_by_the_strict_figures_with_the_switch(client, board):
    """"A board must rank rows scored by one protocol: score uploads the toolkit's way by default so they sit beside
    the reported rows, keep the stricter reading as a labelled second figure ... that a reader can switch to": by
    default the toolkit's figures rank the uploads beside the paper's row; ?reading=strict ranks by the strict figures,
    and rows without them (the paper's, epic-1.0's under the other reading) are blank, unranked and labelled."""
    headline = client.get("/api/leaderboards/epic-bench/?split=t").json()
    rows = ranked(headline)
    assert [(name, rank) for name, rank, _ in rows] == [
        ("Paper-VL", 1), ("Unparseable-VL", 2), ("OneBox-VL", 3), ("OldStrict-VL", None)]
    assert "epic-1.0 (default) under the strict reading only" in rows[-1][2]
    assert headline["reading"]["key"] == "toolkit" and headline["reading"]["headline"] is True
    assert "Figures shown: the toolkit's reading (the headline" in headline["protocol"]

    strict = client.get("/api/leaderboards/epic-bench/?split=t&reading=strict").json()
    rows = ranked(strict)
    assert [(name, rank) for name, rank, _ in rows] == [
        ("OldStrict-VL", 1), ("OneBox-VL", 2), ("Unparseable-VL", 3), ("Paper-VL", None)]
    assert rows[-1][2] == "reported in the paper: the toolkit's reading only"
    values = {r["model"]["name"]: r["values"]["overall"] for r in strict["rows"]}
    assert values["Unparseable-VL"] == 0 and values["Paper-VL"] is None
    assert strict["reading"]["key"] == "strict" and strict["reading"]["headline"] is False
    assert "Figures shown: the strict reading" in strict["protocol"]
    # The headline's own key names the default reading; another key is refused.
    assert client.get("/api/leaderboards/epic-bench/?split=t&reading=toolkit").json()["rows"] == headline["rows"]
    assert client.get("/api/leaderboards/epic-bench/?split=t&reading=lenient").status_code == 400


def test_the_board_page_says_which_reading_its_figures_are_and_links_the_other(client, board):
    """"keep the stricter reading as a labelled second figure ... that a reader can switch to, and say on the board
    which protocol its numbers use": the page names the reading shown in its protocol line, links the other one, and
    orders its rows by the figures shown."""
    page = client.get("/leaderboard/epic-bench/?split=t").content.decode()
    protocol = page.split('id="board-protocol"')[1].split("</p>")[0]
    assert "Figures shown: the toolkit&#x27;s reading (the headline" in protocol
    readings = page.split('id="board-readings"')[1].split("</nav>")[0]
    assert 'aria-current="true" data-reading="toolkit"' in readings and "reading=strict" in readings
    assert page.index("Unparseable-VL") < page.index("OneBox-VL")

    page = client.get("/leaderboard/epic-bench/?split=t&reading=strict").content.decode()
    assert "Figures shown: the strict reading" in page.split('id="board-protocol"')[1].split("</p>")[0]
    assert 'aria-current="true" data-reading="strict"' in page
    assert page.index("OneBox-VL") < page.index("Unparseable-VL")
    assert "reported in the paper: the toolkit&#x27;s reading only" in page
    assert 'name="reading" value="strict"' in page  # the filter form keeps the reading


def test_the_exports_carry_the_reading(client, board):
    """"say on the board which protocol its numbers use": the CSV export names the reading on every row (and why a
    row has no figures), the JSON export names it and says it in its protocol."""
    text = client.get("/leaderboard/epic-bench/export.csv?split=t&reading=strict").content.decode()
    table = list(csv.DictReader(io.StringIO(text)))
    assert [r["model"] for r in table] == ["OldStrict-VL", "OneBox-VL", "Unparseable-VL", "Paper-VL"]
    assert {r["reading"] for r in table} == {"strict"} and table[-1]["rank"] == "" and table[-1]["overall"] == ""
    assert table[-1]["reading_note"] == "reported in the paper: the toolkit's reading only"
    default = list(csv.DictReader(io.StringIO(client.get("/leaderboard/epic-bench/export.csv?split=t").content.decode())))
    assert [r["model"] for r in default][:3] == ["Paper-VL", "Unparseable-VL", "OneBox-VL"]
    assert {r["reading"] for r in default} == {"toolkit"}

    exported = client.get("/leaderboard/epic-bench/export.json?split=t&reading=strict").json()
    assert exported["reading"]["key"] == "strict" and "Figures shown: the strict reading" in exported["protocol"]
    assert [r["model"] for r in exported["rows"]][0] == "OldStrict-VL"
    assert client.get("/leaderboard/epic-bench/export.json?split=t").json()["reading"]["key"] == "toolkit"


@pytest.mark.django_db(transaction=True)
def test_the_fast_path_never_serves_one_readings_page_for_the_other(user, epic_t):
    """"A board must rank rows scored by one protocol": the cached board page of one reading is never answered for
    the other, by the view or by the ASGI fast path, even when the reading comes after a long parameter."""
    split, samples = epic_t
    upload(user, split, [std_line(samples["GroundDetection"], UNPARSEABLE)], "Unparseable-VL")
    ar = samples["AffordanceRegion"]
    upload(user, split, [std_line(ar, ar.truth["boxes"])], "OneBox-VL")

    def order(body: bytes) -> bool:
        text = body.decode()
        return text.index("Unparseable-VL") < text.index("OneBox-VL")

    long = "q=&junk=" + "x" * 600
    for base in ("split=t", f"split=t&{long}"):
        for _ in range(2):  # the second read of each comes from the cache
            status, page = get(http_scope("/leaderboard/epic-bench/", base.encode()))
            assert status == 200 and order(page)
            status, page = get(http_scope("/leaderboard/epic-bench/", f"{base}&reading=strict".encode()))
            assert status == 200 and not order(page)
        cached = _cached(http_scope("/leaderboard/epic-bench/", base.encode()))
        assert isinstance(cached, bytes) and order(cached)
        cached = _cached(http_scope("/leaderboard/epic-bench/", f"{base}&reading=strict".encode()))
        assert isinstance(cached, bytes) and not order(cached)
    path = "/leaderboard/epic-bench/?" + long
    assert board_page_key("board:1:v1:fp", path) != board_page_key("board:1:v1:fp", path + "&reading=strict")


def test_the_drilldown_of_a_public_split_shows_a_samples_strict_figure_where_it_differs(client, user, epic_t):
    """"keep the stricter reading as a labelled second figure": on a public split the per-sample results show the
    strict reading's score beside the toolkit's where they differ, and the samples export carries it."""
    split, samples = epic_t
    gd = samples["GroundDetection"]
    submission = upload(user, split, [std_line(gd, UNPARSEABLE)], "Unparseable-VL")
    html = client.get(f"/submissions/{submission.pk}/samples/?task={gd.leaf.name}").content.decode()
    assert "the strict reading: <strong>0.000</strong> invalid (invalid)" in html
    lines = [json.loads(x) for x in b"".join(client.get(f"/submissions/{submission.pk}/samples.jsonl")
                                               .streaming_content).decode().splitlines()]
    assert [x["readings"] for x in lines if "readings" in x] == [
        {"strict": {"score": 0.0, "invalid": True, "outcome": "invalid"}}]
