"""The board in a real Chromium against daphne: sort in place, expand one group's tasks, readable without script."""
import os

import pytest

from tests.leaderboard.conftest import (
    EPIC_LEAVES,
    board_test_split,
    make_entry,
    make_reported,
    make_scored,
    random_scores,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def seeded_board(transactional_db):
    from scoring.models import Sample

    split = board_test_split("epic-bench")
    for i in range(20):
        Sample.objects.create(split=split, key=f"b{i:03d}", position=i, task=EPIC_LEAVES[i % 2])
    figures = [("Alpha-VL", 30.0, 80.0), ("Beta-VL", 50.0, 20.0), ("Gamma-VL", 40.0, 60.0)]
    for name, overall, ba in figures:
        make_reported(split, make_entry(name, kind="proprietary"), overall, {"BA": ba, "SRA": ba / 2, "FP": 33.0})
    make_scored(split, make_entry("Delta-7B", params=7), random_scores(9, 20, 0.7),
                breakdown={"BA": 40.0, "FP": 55.0, EPIC_LEAVES[0]: 61.0, EPIC_LEAVES[1]: 49.0})
    return split


def _models(page):
    return page.locator("#board-table tbody th.model > a:first-child").all_inner_texts()


def test_sort_and_expand_in_place(asgi_server, page, seeded_board):
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    assert _models(page)[0] == "Delta-7B"  # 70% of 20 samples, best average
    page.evaluate("window.__noReload = true")

    # Sorting by BA happens in the page: no navigation, better (higher) first, then reversed on a second click.
    page.click("#board-table thead th[data-key=BA] a.sort-link")
    assert _models(page) == ["Alpha-VL", "Gamma-VL", "Delta-7B", "Beta-VL"]
    assert page.evaluate("window.__noReload") is True
    assert "sort=BA" in page.url
    page.click("#board-table thead th[data-key=BA] a.sort-link")
    assert _models(page) == ["Beta-VL", "Delta-7B", "Gamma-VL", "Alpha-VL"]

    # FP's two leaves are hidden until its group is expanded; the group header widens with them.
    leaf = page.locator(f'#board-table thead th[data-key="{EPIC_LEAVES[0]}"]')
    assert not leaf.is_visible()
    nav_span = page.locator("tr.board-groups th", has_text="Navigation").get_attribute("colspan")
    page.click("#board-table button.expand[data-parent=FP]")
    assert leaf.is_visible()
    assert int(page.locator("tr.board-groups th", has_text="Navigation").get_attribute("colspan")) == int(nav_span) + 2
    assert "61.00" in page.locator("#board-table tbody tr", has_text="Delta-7B").inner_text()
    out = os.environ.get("BOARD_SCREENSHOT")
    if out:
        page.screenshot(path=out, full_page=True)
    page.click("#board-table button.expand[data-parent=FP]")
    assert not leaf.is_visible()


def test_board_reads_and_sorts_without_javascript(asgi_server, chromium, seeded_board):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    page.click("#board-table thead th[data-key=BA] a.sort-link")  # a plain link: the server sorts
    page.wait_for_url("**sort=BA**")
    assert _models(page)[0] == "Alpha-VL"
    page.click("text=Expand all tasks")
    page.wait_for_url("**expand=1**")
    assert page.locator(f'#board-table thead th[data-key="{EPIC_LEAVES[0]}"]').is_visible()
    context.close()


def test_board_refreshes_itself_when_a_score_lands(asgi_server, page, seeded_board):
    # The score is written by this test process, as a worker would: the server's board socket notices it
    # (fingerprint watch) and the page swaps in the new table without a reload.
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    page.wait_for_function("document.getElementById('board-live').hasAttribute('data-connected')")
    page.evaluate("window.__noReload = true")
    make_scored(seeded_board, make_entry("Latecomer-VL"), [1.0] * 20)
    page.wait_for_selector("#board-table th.model >> text=Latecomer-VL", timeout=15000)
    assert _models(page)[0] == "Latecomer-VL"
    assert page.evaluate("window.__noReload") is True
    assert "Updated" in page.locator("#board-live").inner_text()
