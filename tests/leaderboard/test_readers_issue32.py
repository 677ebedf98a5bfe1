"""Issue 32, Readers: plots that the site's own pages may embed (and HEAD), search by organisation over the papers'
rows (the models' facts, each with its source), the Analysis tab's default split, the VGE export's headline name
and the model pages' charts."""
from __future__ import annotations

import csv
import io
import re

import pytest
from django.conf import settings
from django.core.management import call_command

from scoring.core.published import read_model_facts
from scoring.models import ModelEntry
from tests.leaderboard.conftest import board_test_split, make_entry, make_reported

pytestmark = pytest.mark.django_db


@pytest.fixture
def epic_rows():
    split = board_test_split("epic-bench")
    entry = make_entry("Alpha-VL", kind="proprietary")
    make_reported(split, entry, 50.0, {"BA": 45.0, "SRA": 30.0, "ECA": 20.0, "GD": 10.0, "FP": 40.0, "VM": 35.0,
                                        "AR": 5.0, "CR": 25.0, "PR": 30.0})
    make_reported(split, make_entry("Beta-VL", kind="open-source"), 40.0, {"BA": 48.0, "AR": 3.0})
    return split, entry


def test_plots_answer_head_and_may_be_embedded_by_the_sites_own_pages(client, epic_rows):
    """Issue 32: "Every plot SVG on boards and model pages is blocked by the site's own `X-Frame-Options: DENY`
    (`ERR_BLOCKED_BY_RESPONSE`) [...] `HEAD` on a plot answers 405." """
    _, entry = epic_rows
    for url in ("/leaderboard/epic-bench/plots/categories.svg", "/leaderboard/epic-bench/plots/params.svg",
                f"/models/{entry.slug}/chart/epic-bench.svg"):
        for method in (client.get, client.head):
            response = method(url)
            assert response.status_code == 200, (url, method)
            assert response["Content-Type"] == "image/svg+xml"
            assert response["X-Frame-Options"] == "SAMEORIGIN", url
    # Pages themselves stay unframeable.
    assert client.get("/leaderboard/epic-bench/")["X-Frame-Options"] == "DENY"
    assert client.post("/leaderboard/epic-bench/plots/categories.svg").status_code == 405


def test_search_by_organisation_finds_the_papers_rows(client):
    """Issue 32: "Search says "model or organisation", but `?q=google` and `?q=alibaba` find 0 of 89: every paper
    model's organisation is "not stated". [...] fill organisation, open weights, parameters and thinking mode for
    the reported rows from the papers (with the source), so model pages are model cards and the filters work." """
    call_command("seed_published")
    google = client.get("/leaderboard/epic-bench/export.json?q=google").json()["rows"]
    names = {r["model"] for r in google}
    assert {"Gemini-2.5-Pro", "Gemini-3-pro", "Gemini-3.1-Pro", "Gemma-3-27B-IT"} <= names
    assert all(n.startswith(("Gemini", "Gemma")) for n in names)
    alibaba = {r["model"] for r in client.get("/leaderboard/epic-bench/export.json?q=alibaba").json()["rows"]}
    assert "Qwen3.5-27B" in alibaba and "Qwen2.5-VL-72B" in alibaba
    # The parameter filter reads the filled sizes; the model page is a model card with each fact's source.
    small = {r["model"] for r in client.get("/leaderboard/epic-bench/export.json?q=alibaba&max_params=3").json()["rows"]}
    assert "Qwen3.5-2B" in small and "Qwen3.5-27B" not in small
    gemini = ModelEntry.objects.get(name="Gemini-3-pro", thinking="yes")
    assert (gemini.organisation, gemini.open_weights) == ("Google", False)
    page = client.get(f"/models/{gemini.slug}/").content.decode()
    assert "Table 8 group: proprietary" in page and "Gemini is Google" in page
    qwen = ModelEntry.objects.get(name="Qwen3.5-27B", thinking="no")
    assert (qwen.open_weights, qwen.parameters_b, qwen.fact_sources["parameters_b"]) == (True, 27.0, "model name")
    # A thinking mode the model's name states, where the paper's row does not.
    doubao = ModelEntry.objects.get(name="Doubao-1.5-Thinking-Vision-Pro")
    assert doubao.thinking == "yes" and doubao.fact_sources["thinking"] == "model name ('Thinking')"
    # Unknowns stay empty ("not stated"), and every fact given has its source.
    vebrain = ModelEntry.objects.get(name="VeBrain")
    assert (vebrain.organisation, vebrain.open_weights, vebrain.parameters_b) == ("", None, None)
    facts = read_model_facts(settings.PUBLISHED_DATA_DIR)
    for f in facts.values():
        for name in ("organisation", "open_weights", "parameters_b", "thinking"):
            if getattr(f, name) not in (None, ""):
                assert f.sources.get(name), (f.model, name)
    # Idempotent; a fact already edited is kept (and keeps no paper source).
    ModelEntry.objects.filter(pk=qwen.pk).update(organisation="Qwen team, Alibaba Cloud", fact_sources={})
    call_command("seed_published")
    assert ModelEntry.objects.filter(name="Gemini-3-pro").count() == 1
    qwen.refresh_from_db()
    assert qwen.organisation == "Qwen team, Alibaba Cloud" and "organisation" not in qwen.fact_sources


def test_a_model_seeded_before_its_facts_keeps_one_entry(client):
    """Issue 32: "fill organisation, open weights, parameters and thinking mode for the reported rows from the
    papers (with the source)": a database seeded before the facts file gets them on its existing entries, without
    a second entry for a mode the name states."""
    split = board_test_split("vge-bench")
    old = make_entry("Doubao-1.5-Thinking-Vision-Pro", kind="proprietary", thinking="")
    make_reported(split, old, 16.68)
    call_command("seed_published")
    entries = ModelEntry.objects.filter(name="Doubao-1.5-Thinking-Vision-Pro")
    assert [(e.pk, e.thinking) for e in entries] == [(old.pk, "yes")]
    rows = client.get("/leaderboard/vge-bench/export.json").json()["rows"]
    assert [r["thinking"] for r in rows if r["model"] == "Doubao-1.5-Thinking-Vision-Pro"] == ["yes"]


def test_the_analysis_tab_opens_on_a_split_with_scored_samples(client):
    """Issue 32: "The Analysis tab opens on an empty split ("0 models, 0 samples") and orders its tabs differently
    from the board; "docs/analyses.md" is cited as plain text." And: "`/leaderboard/<b>/analysis/<key>.csv` without
    `?split=` answers 404 on the demo rather than using the board's default split"."""
    call_command("seed_published")
    call_command("make_demo_plan")
    page = client.get("/leaderboard/plan-bench/analysis/").content.decode()
    current = re.search(r'class="split-tab current"[^>]*>([^<]+)<', page).group(1)
    assert current == "demo"
    tabs = re.findall(r'class="split-tab[^"]*"[^>]*>([^<]+)<', page)
    board = client.get("/leaderboard/plan-bench/").content.decode()
    assert tabs == re.findall(r'class="split-tab[^"]*"[^>]*>([^<]+)<', board)
    assert 'id="no-scored"' not in page
    plain = client.get("/leaderboard/plan-bench/analysis/subtasks.csv")
    assert plain.status_code == 200
    assert plain.content == client.get("/leaderboard/plan-bench/analysis/subtasks.csv?split=demo").content
    link = re.search(r'<a href="([^"]+)" id="analysis-method-link">docs/analyses.md</a>', page)
    assert link is not None
    method = client.get(link.group(1))
    assert method.status_code == 200 and "<h2>How it works</h2>" in method.content.decode()


def test_the_vge_csv_names_its_headline_sr_as_the_board_does(client):
    """Issue 32: "The VGE CSV calls the headline "overall" where the board says SR." """
    split = board_test_split("vge-bench")
    make_reported(split, make_entry("Gamma-VL", kind="proprietary"), 54.27, {"SSR": 62.86})
    header = next(csv.reader(io.StringIO(client.get("/leaderboard/vge-bench/export.csv").content.decode())))
    assert "SR" in header and "SR_ci_low" in header and "overall" not in header
    assert client.get("/leaderboard/vge-bench/export.json").json()["rows"][0]["SR"] == 54.27
    epic = next(csv.reader(io.StringIO(client.get("/leaderboard/epic-bench/export.csv").content.decode())))
    assert "overall" in epic  # a headline its benchmark calls "overall" keeps the name


def _panel_tops(body: str) -> list[str]:
    """The top tick of each panel (the third tick label of each)."""
    ticks = re.findall(r'text-anchor="end" font-size="10" fill="#57606a">([^<]+)</text>', body)
    return ticks[2::3]


def test_model_page_charts_share_one_axis_leave_out_empty_panels_and_promise_no_absent_baseline(client, epic_rows):
    """Issue 32: "Model pages: panels use different y-axes (0–50 vs 0–100); empty PLAN panels draw 0–1 axes; the
    heading promises a human baseline that EPIC and PLAN do not have." """
    _, entry = epic_rows
    plan = board_test_split("plan-bench")
    make_reported(plan, entry, 46.4)  # the paper states the overall only
    epic_chart = client.get(f"/models/{entry.slug}/chart/epic-bench.svg").content.decode()
    tops = _panel_tops(epic_chart)
    assert len(tops) == 9 and set(tops) == {"100"}
    plan_chart = client.get(f"/models/{entry.slug}/chart/plan-bench.svg").content.decode()
    assert _panel_tops(plan_chart) == ["100"]  # the overall alone: no empty dimension panels on 0-1 axes
    page = client.get(f"/models/{entry.slug}/").content.decode()
    assert "human baseline" not in page
    vge = board_test_split("vge-bench")
    make_reported(vge, entry, 10.0, {"SSR": 20.0, "VSPS": 1.2})
    make_reported(vge, make_entry("Human (149 episodes)", kind="human"), 74.5, {"SSR": 81.43, "VSPS": 1.12})
    page = client.get(f"/models/{entry.slug}/").content.decode()
    assert "with the human baseline" in page
    vge_chart = client.get(f"/models/{entry.slug}/chart/vge-bench.svg").content.decode()
    assert "Human: Human (149 episodes)" in vge_chart
    assert _panel_tops(vge_chart)[:1] == ["100"] and "2" in _panel_tops(vge_chart)  # VSPS: its own axis
