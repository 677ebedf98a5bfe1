"""The Analysis tab in a real Chromium against daphne: a score that lands shows in its figures without a reload."""
import pytest

from scoring.models import Sample
from tests.leaderboard.conftest import board_test_split, make_entry, make_scored

pytestmark = pytest.mark.browser


@pytest.fixture
def seeded_split(transactional_db):
    split = board_test_split("epic-bench")
    # An open split: the count figures read ground truth, which a hidden split keeps out of every public figure
    split.hidden_ground_truth = False
    split.save(update_fields=["hidden_ground_truth"])
    for i in range(6):
        Sample.objects.create(split=split, key=f"a{i:03d}", position=i, category="TargetLocalization", task="Color")
    make_scored(split, make_entry("First-VL"), [1.0, 0.0] * 3)
    return split


def test_a_new_score_appears_in_the_figures_without_a_reload(asgi_server, page, seeded_split):
    page.goto(f"{asgi_server}/leaderboard/epic-bench/analysis/")
    assert "First-VL" in page.locator("#figure-leaf-scores svg").inner_html()
    page.wait_for_function("document.getElementById('analysis-live').hasAttribute('data-connected')")
    page.evaluate("window.__noReload = true")
    counts = [{"count": {"gt_count": 2, "pred_count": 2}}] * 6
    make_scored(seeded_split, make_entry("Latecomer-VL"), [1.0] * 6, details=counts)
    page.wait_for_function(
        "document.querySelector('#figure-leaf-scores svg').innerHTML.includes('Latecomer-VL')", timeout=15000)
    assert page.evaluate("window.__noReload") is True
    assert "Updated" in page.locator("#analysis-live").inner_text()
    assert "Latecomer-VL" in page.locator("#figure-counting-exact svg").inner_html()
