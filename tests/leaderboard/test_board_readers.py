"""What a board reader sees: expanded task columns that no shown row fills are left out (and the page says why),
PLAN's header names "Dimensions" once, an empty split does not talk about filters, best marks within each kind."""
import re

import pytest
from django.core.cache import cache

from leaderboard.selectors import board_local_responses_clear
from scoring.benchmarks import board_for
from scoring.core.columns import Level
from tests.leaderboard.conftest import (
    EPIC_LEAVES,
    board_test_split,
    make_entry,
    make_reported,
    make_scored,
    random_scores,
)

EPIC_ALL_LEAVES = [c.key for c in board_for("epic-bench").columns if c.level is Level.LEAF]


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()


def _header_keys(html: str) -> list[str]:
    head = html.split("<tbody>")[0]
    return re.findall(r'<th scope="col"[^>]*data-key="([^"]+)"', head)


@pytest.mark.django_db
def test_expand_all_tasks_leaves_out_task_columns_no_shown_row_fills_and_says_why(client, epic_split):
    for i, name in enumerate(("Paper-A", "Paper-B", "Paper-C")):
        make_reported(epic_split, make_entry(name, kind="proprietary"), 30.0 + i, {"BA": 20.0 + i, "FP": 40.0})
    html = client.get("/leaderboard/epic-bench/?expand=1").content.decode()
    keys = _header_keys(html)
    assert not set(EPIC_ALL_LEAVES) & set(keys)  # the papers' rows have no per-task figures
    assert {"overall", "BA", "FP"} <= set(keys)  # headline columns stay even when empty (SRA here)
    assert "SRA" in keys
    note = re.search(r'<p class="muted board-note" id="hidden-leaves">(.*?)</p>', html, re.DOTALL).group(1)
    assert f"{len(EPIC_ALL_LEAVES)} task columns left out" in note and "category scores only" in note
    assert "FP-Ego" in note

    # A scored row with two task figures brings exactly those two back.
    make_scored(epic_split, make_entry("Scored-7B", params=7), random_scores(3, 40, 0.5),
                breakdown={"FP": 50.0, EPIC_LEAVES[0]: 61.0, EPIC_LEAVES[1]: 40.0})
    cache.clear()
    html = client.get("/leaderboard/epic-bench/?expand=1").content.decode()
    keys = _header_keys(html)
    assert [k for k in keys if k in EPIC_ALL_LEAVES] == list(EPIC_LEAVES)
    assert f"{len(EPIC_ALL_LEAVES) - 2} task columns left out" in html
    # Filtered down to the papers' rows again, the two go away: "every shown row", not every row.
    html = client.get("/leaderboard/epic-bench/?expand=1&source=reported").content.decode()
    assert not set(EPIC_ALL_LEAVES) & set(_header_keys(html))


@pytest.mark.django_db
def test_plan_header_names_dimensions_once(client):
    split = board_test_split("plan-bench")
    make_reported(split, make_entry("Paper-P", kind="proprietary"), 50.0,
                  {"spatial_cognition": 40.0, "temporal_reasoning": 50.0, "multi_step_planning": 60.0})
    for url in ("/leaderboard/plan-bench/", "/leaderboard/plan-bench/?expand=1"):
        html = client.get(url).content.decode()
        groups = re.findall(r'class="group-head[^"]*">([^<]*)</th>', html)
        assert groups.count("Dimensions") == 1, (url, groups)


@pytest.mark.django_db
def test_an_empty_split_says_so_instead_of_blaming_filters(client, epic_split):
    html = client.get("/leaderboard/epic-bench/").content.decode()
    assert "No entries on this split yet." in html and "match these filters" not in html
    make_reported(epic_split, make_entry("Paper-A", kind="proprietary"), 30.0)
    cache.clear()
    html = client.get("/leaderboard/epic-bench/?kind=embodied").content.decode()
    assert "No entries match these filters." in html


@pytest.mark.django_db
def test_best_marks_are_given_within_each_kind_and_the_best_of_all_is_starred(client, epic_split):
    make_reported(epic_split, make_entry("Prop-A", kind="proprietary"), 60.0)
    make_reported(epic_split, make_entry("Prop-B", kind="proprietary"), 55.0)
    make_reported(epic_split, make_entry("Open-A"), 40.0)
    make_reported(epic_split, make_entry("Open-B"), 30.0)
    make_reported(epic_split, make_entry("Open-C"), 20.0)
    html = client.get("/leaderboard/epic-bench/").content.decode()

    def overall_cell(name):
        row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*>{name}</a>(?:(?!</tr>).)*</tr>', html, re.DOTALL).group(0)
        return re.search(r'<td data-key="overall"[^>]*>.*?</td>', row, re.DOTALL).group(0)

    assert 'class="best' in overall_cell("Prop-A") and "★" in overall_cell("Prop-A")
    assert 'class="second' in overall_cell("Prop-B")
    assert 'class="best' in overall_cell("Open-A") and "★" not in overall_cell("Open-A")
    assert 'class="second' in overall_cell("Open-B")
    assert 'class="best' not in overall_cell("Open-C") and 'class="second' not in overall_cell("Open-C")
    assert "within each kind of model" in html


@pytest.mark.django_db
def test_plots_link_points_and_bars_to_model_pages_and_give_vge_ratios_their_own_axis(client):
    split = board_test_split("vge-bench")
    entry = make_entry("Open-VLA-7B", params=7)
    make_reported(split, entry, 45.0, {"SSR": 50.0, "VSPS": 0.92, "GVPE": 1.1})
    make_reported(split, make_entry("Prop-X", kind="proprietary"), 60.0, {"SSR": 70.0, "VSPS": 0.5, "GVPE": 1.4})
    page = client.get("/leaderboard/vge-bench/").content.decode()
    assert '<object id="plot-categories"' in page and '<object id="plot-params"' in page
    scatter = client.get("/leaderboard/vge-bench/plots/params.svg").content.decode()
    assert f'<a href="/models/{entry.slug}/" target="_top">' in scatter and "<title>Open-VLA-7B: 45.00 at 7B</title>" in scatter
    bars = client.get("/leaderboard/vge-bench/plots/categories.svg").content.decode()
    assert f'href="/models/{entry.slug}/"' in bars
    # VSPS 0.92 drawn on a 0-1 axis: a bar most of its panel high, not 1% of a 0-100 one.
    height = float(re.search(r'height="([\d.]+)"[^>]*><title>Open-VLA-7B · VSPS ↓: 0.92</title>', bars).group(1))
    assert height > 100
    assert ">SPL ↑</text>" not in bars  # no model here has an SPL figure: no empty panel


@pytest.mark.django_db
def test_model_page_shows_the_size_the_board_knows_and_says_where_it_comes_from(client, epic_split):
    moe = make_entry("Qwen3.5-35B-A3B")
    make_reported(epic_split, moe, 30.0)
    board = client.get("/leaderboard/epic-bench/").content.decode()
    assert ">35B</span>" in board
    page = client.get(f"/models/{moe.slug}/").content.decode()
    size = page.split('id="model-size">')[1].split("</dd>")[0]
    assert "35 B total, 3 B active" in size and "read from the model's name" in size
    assert "not stated" not in size
    assert "listed among the open-source models by the paper" in page
    assert 'id="reported-in"' in page and f"{epic_split.benchmark.name} paper" in page
    stated = make_entry("Stated-Model", params=12.5, organisation="Lab X")
    page = client.get(f"/models/{stated.slug}/").content.decode()
    assert "12.5 B</dd>" in page and "read from" not in page and "Lab X" in page
    assert "Open weights</dt><dd id=\"model-open-weights\">not stated" in page  # no paper row, no field: an honest blank


@pytest.mark.django_db
def test_plan_board_says_how_models_are_prompted_and_that_the_judge_prompt_is_a_paraphrase(client, settings, tmp_path):
    import json

    from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION

    board_test_split("plan-bench")
    html = client.get("/leaderboard/plan-bench/").content.decode()
    block = html.split('id="plan-prompts"')[1].split("</details>")[0]
    assert "Return one option letter only." in block and PROMPT_VERSION in block and "a paraphrase" in block
    prompts = tmp_path / "p.json"
    prompts.write_text(json.dumps({"open_system": "S", "open_user": "{answer}{hint}{output}", "choice_system": "C",
                                   "choice_user": "{question}{options}{output}"}))
    settings.PLAN_JUDGE_PROMPT_FILE = str(prompts)
    cache.clear()
    board_local_responses_clear()  # the page is also kept per process, in front of the shared cache
    block = client.get("/leaderboard/plan-bench/").content.decode().split('id="plan-prompts"')[1].split("</details>")[0]
    assert "supplied by this site" in block and "site#" in block and "a paraphrase" not in block
    prompts.write_text("{")
    cache.clear()
    board_local_responses_clear()
    page = client.get("/leaderboard/plan-bench/")
    assert page.status_code == 200 and "judge prompt file cannot be used" in page.content.decode()
