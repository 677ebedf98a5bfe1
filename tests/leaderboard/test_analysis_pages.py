"""The Analysis tab: generic page, per-figure SVG/CSV/JSON, the board's filters, and live updates (a new score
shows in the figures at the next request)."""
from __future__ import annotations

import csv
import io
import json
from functools import lru_cache

import numpy as np
import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import Benchmark, ModelEntry, Split, Submission
from tests.leaderboard.conftest import make_entry, make_reported

pytestmark = pytest.mark.django_db


@lru_cache(maxsize=1)
def _samples() -> tuple[demo.DemoSample, ...]:
    return tuple(demo.make_split(17, per_leaf=1))


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()  # ids repeat between tests; a board's cached fingerprint must not


@pytest.fixture
def split(tmp_path) -> Split:
    demo.write_layout(tmp_path, _samples())
    split, report = epic_split_import(path=tmp_path, split_name="t", hidden=False)
    assert report.problems == []
    return split


@pytest.fixture
def submit(django_capture_on_commit_callbacks):
    """Upload and score at once, running what the commit triggers (score_landed: the board's cache bump)."""
    def run(user, split: Split, kind: str, name: str) -> Submission:
        with django_capture_on_commit_callbacks(execute=True):
            return _submit(user, split, kind, name)
    return run


def _submit(user, split: Split, kind: str, name: str) -> Submission:
    rng = np.random.default_rng(0)
    make = {"oracle": demo.oracle_response, "noisy": lambda s: demo.noisy_response(s, rng)}[kind]
    lines = [json.dumps(demo.raw_line(s, make(s), prefix="/x/")) for s in _samples()]
    entry = ModelEntry.objects.create(name=name, slug=name.lower())
    submission = services.submission_create(user=user, split=split, model_entry=entry, options={"raw": True},
                                            uploaded_file=SimpleUploadedFile("p.jsonl", "\n".join(lines).encode()))
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    return submission


def figure_json(client, key: str, query: str = "split=t") -> dict:
    return figure_json_for(client, "epic-bench", key, query)


def figure_json_for(client, slug: str, key: str, query: str) -> dict:
    response = client.get(f"/leaderboard/{slug}/analysis/{key}.json?{query}")
    assert response.status_code == 200, response.content[:300]
    return json.loads(response.content)


def test_a_new_score_appears_in_the_figures_at_once(client, user, split, submit):
    make_reported(split, make_entry("Paper-Model", kind="proprietary"), 50.0)  # no per-sample data: never shown
    submit(user, split, "oracle", "Oracle-E")
    first = figure_json(client, "leaf-scores")
    assert {r["model"] for r in first["rows"]} == {"Oracle-E"}
    assert first["n"] == 23 and len(first["rows"]) == 23  # one sample per leaf
    submit(user, split, "noisy", "Noisy-E")
    second = figure_json(client, "leaf-scores")
    assert {r["model"] for r in second["rows"]} == {"Oracle-E", "Noisy-E"} and second["n"] == 46
    # The board's filters apply: a search keeps one model.
    assert {r["model"] for r in figure_json(client, "leaf-scores", "split=t&q=noisy")["rows"]} == {"Noisy-E"}
    # The oracle counts every sample exactly.
    counting = figure_json(client, "counting-exact")
    oracle = [r for r in counting["rows"] if r["model"] == "Oracle-E" and r["n"]]
    assert oracle and all(r["exact_accuracy"] == 100.0 for r in oracle)
    assert sum(r["n"] for r in oracle) == counting["n"] // 2


def test_page_svg_and_csv(client, user, split, submit):
    submit(user, split, "oracle", "Oracle-E")
    page = client.get("/leaderboard/epic-bench/analysis/?split=t")
    assert page.status_code == 200
    html = page.content.decode()
    for key in ("counting-exact", "counting-soft", "leaf-scores", "leaf-components", "invalid-responses",
                "localization"):
        assert f'id="figure-{key}"' in html and f"/analysis/{key}.csv?split=t" in html
    assert html.count("<svg") == 6 and "Oracle-E" in html
    svg = client.get("/leaderboard/epic-bench/analysis/leaf-scores.svg?split=t")
    assert svg["Content-Type"] == "image/svg+xml" and b"Oracle-E" in svg.content
    body = client.get("/leaderboard/epic-bench/analysis/invalid-responses.csv?split=t").content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["model", "leaf", "n", "invalid", "wrong", "invalid_share", "wrong_share"]
    assert len(rows) == 1 + 23 and all(r[3] == "0" for r in rows[1:])
    board = client.get("/leaderboard/epic-bench/?split=t").content.decode()
    assert "/leaderboard/epic-bench/analysis/?split=t" in board


def test_bad_requests_are_clear(client, split):
    assert client.get("/leaderboard/epic-bench/analysis/nope.json?split=t").status_code == 404
    assert b"Known: counting-exact" in client.get("/leaderboard/epic-bench/analysis/nope.json?split=t").content
    assert client.get("/leaderboard/epic-bench/analysis/leaf-scores.xml?split=t").status_code == 404
    assert client.get("/leaderboard/epic-bench/analysis/?split=zzz").status_code == 404
    assert client.get("/leaderboard/epic-bench/analysis/?split=t&min_params=abc").status_code == 400
    empty = client.get("/leaderboard/epic-bench/analysis/leaf-scores.json?split=t")
    assert json.loads(empty.content)["rows"] == []


def test_plan_analysis_shows_the_papers_figures_and_deltas_beside_scored_entries(client):
    call_command("seed_published")
    call_command("make_demo_plan")
    paper = figure_json_for(client, "plan-bench", "subtasks", "split=test")
    qwen = [r for r in paper["rows"] if r["model"] == "Qwen3.8-Max" and r["column"] == "overall"]
    assert qwen == [{"model": "Qwen3.8-Max", "source": "paper", "column": "overall", "n": None, "accuracy": 75.0}]
    others = figure_json_for(client, "plan-bench", "paper-figures", "split=test")["rows"]
    assert {"model": "Qwen3.8-27B", "metric": "navigation", "value": 54.6,
            "source": "sec 4.3 prose (Figure 6)"} in others
    page = client.get("/leaderboard/plan-bench/analysis/?split=test").content.decode()
    assert 'id="figure-paper-figures"' in page and "spatial_relations_1_right_4_mislead" in page  # as a table
    deltas = figure_json_for(client, "plan-bench", "thinking", "split=test")["rows"]
    assert len(deltas) == 7 and {r["source"] for r in deltas} == {"paper"}
    demo = figure_json_for(client, "plan-bench", "subtasks", "split=demo")
    oracle = [r for r in demo["rows"] if r["column"] == "overall" and r["model"] == "PLAN demo: rule-perfect oracle"]
    assert oracle[0]["accuracy"] == 100.0 and oracle[0]["n"] == demo["n"] // 2
    assert figure_json_for(client, "plan-bench", "thinking", "split=demo")["rows"] == []  # no paper rows there
    groups = {r["group"]: r["n"] for r in figure_json_for(client, "plan-bench", "groups", "split=demo")["rows"]
              if r["model"] == "PLAN demo: rule-perfect oracle"}
    assert groups["with_hint"] > 0 and groups["with_hint"] + groups["without_hint"] == oracle[0]["n"]  # GT read
    judge = figure_json_for(client, "plan-bench", "judge", "split=demo")
    assert sum(r["n"] for r in judge["rows"]) == demo["n"]


def test_a_benchmark_without_analyses_says_so(client, dummy_benchmark):
    bench = Benchmark.objects.create(slug="dummy", name="Dummy", scorer="dummy")
    Split.objects.create(benchmark=bench, name="dev", is_default=True)
    page = client.get("/leaderboard/dummy/analysis/")
    assert page.status_code == 200 and b"declares no analyses yet" in page.content
    assert client.get("/leaderboard/dummy/analysis/x.json").status_code == 404


def test_a_hidden_split_has_no_figure_read_from_its_ground_truth(client, user, tmp_path, submit):
    """The count distribution (true counts per bin) is ground truth: on a hidden split neither the page nor the
    figure's SVG/CSV/JSON gives it, and both say why; figures from the submissions' own scores stay."""
    demo.write_layout(tmp_path, _samples())
    hidden, report = epic_split_import(path=tmp_path, split_name="secret", hidden=True)
    assert report.problems == [] and hidden.hidden_ground_truth
    submit(user, hidden, "oracle", "Oracle-E")
    for fmt in ("json", "csv", "svg"):
        response = client.get(f"/leaderboard/epic-bench/analysis/counting-exact.{fmt}?split=secret")
        assert response.status_code == 404, (fmt, response.content[:300])
        assert b"ground truth" in response.content and b"gt_count" not in response.content
        assert b"true_count" not in response.content
    page = client.get("/leaderboard/epic-bench/analysis/?split=secret").content.decode()
    assert 'id="figure-counting-exact"' not in page and 'id="figure-counting-soft"' not in page
    assert "hidden ground truth" in page and "counting-exact" in page
    assert figure_json(client, "leaf-scores", "split=secret")["n"] == 23
