"""Reading a wide board in a real Chromium: rank and model stay in place while the table scrolls sideways,
"More columns" brings its columns into view at 1366 px, a phone shows the headline score and lets the reader pick
columns, and the export links follow the sort chosen on screen."""
import os

import pytest

from scoring.benchmarks import board_for
from scoring.core.columns import Level
from tests.leaderboard.conftest import (
    board_test_split,
    make_entry,
    make_reported,
    make_scored,
    random_scores,
)

pytestmark = pytest.mark.browser

LEAVES = [c.key for c in board_for("epic-bench").columns if c.level is Level.LEAF]


@pytest.fixture
def wide_board(transactional_db):
    from scoring.models import Sample

    split = board_test_split("epic-bench")
    for i in range(20):
        Sample.objects.create(split=split, key=f"w{i:03d}", position=i, task=LEAVES[i % len(LEAVES)])
    for name, overall, ba in [("Alpha-VL", 30.0, 80.0), ("Beta-VL", 50.0, 20.0), ("Gamma-VL", 40.0, 60.0)]:
        make_reported(split, make_entry(name, kind="proprietary"), overall,
                      {"BA": ba, "SRA": ba / 2, "FP": 33.0, "TL": 20.0, "Nav": 30.0, "Manip": 40.0})
    breakdown = {"BA": 40.0, "FP": 55.0, "TL": 41.0, "Nav": 42.0, "Manip": 43.0}
    breakdown.update({leaf: 50.0 + i for i, leaf in enumerate(LEAVES)})
    make_scored(split, make_entry("Delta-Very-Long-Model-Name-7B", params=7), random_scores(9, 20, 0.7),
                breakdown=breakdown)
    return split


def _screenshot(page, name: str) -> None:
    """READERS_SCREENSHOTS=<folder> keeps a picture of each state checked (for reviewing the layout by eye)."""
    folder = os.environ.get("READERS_SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"{name}.png"))


def _visible_at_its_centre(page, selector: str) -> bool:
    """The element is on screen and nothing covers its centre (a sticky cell that scrolled under another fails)."""
    return page.evaluate(
        """(sel) => {
            const el = document.querySelector(sel);
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.right <= 0 || r.left >= window.innerWidth) return false;
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return hit !== null && (hit === el || el.contains(hit));
        }""",
        selector,
    )


def test_rank_and_model_stay_visible_while_scrolled_sideways(asgi_server, chromium, wide_board):
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{asgi_server}/leaderboard/epic-bench/?expand=1")
    width, client = page.evaluate(
        "(() => { const s = document.querySelector('.board-scroll'); return [s.scrollWidth, s.clientWidth]; })()")
    assert width > client + 500  # 19 task columns: far wider than the window
    page.evaluate("document.querySelector('.board-scroll').scrollLeft = 100000")
    assert page.evaluate("document.querySelector('.board-scroll').scrollLeft") > 500
    model = "#board-table tbody tr:first-child th.model > a:first-child"
    rank = "#board-table tbody tr:first-child td.rank"
    assert _visible_at_its_centre(page, model)
    assert _visible_at_its_centre(page, rank)
    assert _visible_at_its_centre(page, "#board-table thead th[data-key=model]")
    page.locator(".board-scroll").scroll_into_view_if_needed()
    _screenshot(page, "scrolled-sideways-1366")
    # The last task column is on screen too, to the right of the pinned ones.
    last = page.locator(f'#board-table thead th[data-key="{LEAVES[-1]}"]').bounding_box()
    model_box = page.locator(model).bounding_box()
    assert last["x"] > model_box["x"] + model_box["width"]
    context.close()


def test_more_columns_brings_the_added_columns_into_view_at_1366(asgi_server, chromium, wide_board):
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    assert page.locator("#board-table thead th[data-key=TL]").count() == 0
    page.click("#toggle-extras")
    page.wait_for_url("**extras=1**")
    assert "TL, Nav, Manip" in page.locator("#extras-note").inner_text()
    for key in ("TL", "Nav", "Manip"):
        assert _visible_at_its_centre(page, f"#board-table thead th[data-key={key}]"), key
    assert _visible_at_its_centre(page, "#board-table tbody tr:first-child th.model > a:first-child")
    page.locator(".board-scroll").scroll_into_view_if_needed()
    _screenshot(page, "more-columns-1366")
    context.close()


def test_phone_shows_the_headline_score_and_lets_the_reader_pick_columns(asgi_server, chromium, wide_board):
    """On a phone every column is in the table, which scrolls sideways (issue 32); "Columns" still hides one."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    first = "#board-table tbody tr:first-child"
    assert page.locator(f"{first} td[data-key=overall]").is_visible()
    assert page.locator(f"{first} th.model").is_visible()
    assert page.locator(f"{first} td[data-key=BA]").is_visible()
    # Both the headline score and the model fit the phone's width.
    box = page.locator(f"{first} td[data-key=overall]").bounding_box()
    assert box["x"] + box["width"] <= 390
    page.locator(".board-scroll").scroll_into_view_if_needed()
    _screenshot(page, "phone-390")
    page.click("#column-picker summary")
    page.uncheck("#column-picker input[value=BA]")
    assert not page.locator(f"{first} td[data-key=BA]").is_visible()
    page.uncheck("#column-picker input[value=overall]")
    assert not page.locator(f"{first} td[data-key=overall]").is_visible()
    context.close()


def test_exports_follow_the_sort_chosen_on_screen(asgi_server, page, wide_board):
    page.goto(f"{asgi_server}/leaderboard/epic-bench/")
    page.click("#board-table thead th[data-key=BA] a.sort-link")  # sorted in the page, no reload
    href = page.locator("a[data-export]", has_text="CSV").get_attribute("href")
    assert "sort=BA" in href and "order=desc" in href
    body = page.request.get(f"{asgi_server}{href}").text()
    models = [line.split(",")[1] for line in body.strip().splitlines()[1:]]
    assert models == ["Alpha-VL", "Gamma-VL", "Delta-Very-Long-Model-Name-7B", "Beta-VL"]
    page.click("#board-table thead th[data-key=BA] a.sort-link")  # reversed
    href = page.locator("a[data-export]", has_text="JSON").get_attribute("href")
    assert "order=asc" in href
    rows = page.request.get(f"{asgi_server}{href}").json()["rows"]
    assert rows[0]["model"] == "Beta-VL"
