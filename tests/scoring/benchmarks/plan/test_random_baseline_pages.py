"""PLAN-Bench's random baseline on the site: computed for every split from its items' option counts, on the
Analysis tab (beside the paper's row) and above the board (a hidden split included: option counts are inputs)."""
from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.core.management import call_command

from scoring.models import Sample, Split

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def _figure(client, split: str) -> dict:
    response = client.get(f"/leaderboard/plan-bench/analysis/random-baseline.json?split={split}")
    assert response.status_code == 200, response.content[:300]
    return json.loads(response.content)


def _expected(split: Split) -> float:
    """A uniform guesser's expected accuracy over the split's items, worked out from their inputs alone."""
    items = list(Sample.objects.filter(split=split).values_list("group", "inputs"))
    chance = [1 / len(inputs["options"]) if group == "single_choice" else 0.0 for group, inputs in items]
    return 100 * sum(chance) / len(chance)


def test_every_split_has_a_random_baseline_computed_from_its_options(client):
    """The paper's Table 1 has a row "Random baseline" (its caption: 25% single choice / 0% open); the hub
    computes it for each split from the items' option counts, beside the paper's row."""
    call_command("seed_published")
    call_command("make_demo_plan")
    demo = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    fig = _figure(client, "demo")
    overall = [r for r in fig["rows"] if r["column"] == "overall"]
    assert overall == [{"source": "computed from this split's options", "column": "overall", "n": 48,
                        "accuracy": pytest.approx(_expected(demo), abs=1e-4)}]
    assert {r["column"]: r["accuracy"] for r in fig["rows"]}["open"] == 0.0
    # The split the paper's rows are on (hidden ground truth): its "Random baseline" row is shown as 'paper'.
    paper = {r["column"]: r["accuracy"] for r in _figure(client, "test")["rows"] if r["source"] == "paper"}
    assert paper == {"spatial_cognition": 10.4, "single_choice": 25.0, "open": 0.0}
    # A hidden split: the Analysis tab does no site reads there, but the board computes it from the inputs.
    demo.hidden_ground_truth = True
    demo.save(update_fields=["hidden_ground_truth"])
    cache.clear()
    assert [r for r in _figure(client, "demo")["rows"] if r["source"] != "paper"] == []
    board = client.get("/leaderboard/plan-bench/?split=demo").content.decode()
    assert 'id="random-baseline"' in board and f"overall {_expected(demo):.1f}%" in board
