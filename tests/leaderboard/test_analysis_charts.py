"""The Analysis tab's charts are found by what they draw (issue 34): a page made again after a score landed redraws
only the charts whose data changed, and every chart shown, or served at its .svg URL, is the one its figure draws."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command

from leaderboard.core import analysis_svg
from scoring.models import Split, Submission
from scoring.selectors import board_cache_invalidate

pytestmark = pytest.mark.django_db

PAGE = "/leaderboard/plan-bench/analysis/"
DRAW = analysis_svg.render  # the charts' drawing itself


@pytest.fixture
def drawn(monkeypatch) -> list[str]:
    """The titles of the charts drawn (analysis_svg.render, called through)."""
    titles: list[str] = []

    def counted(chart, *, title):
        titles.append(title)
        return DRAW(chart, title=title)

    monkeypatch.setattr(analysis_svg, "render", counted)
    return titles


def shown(client) -> list:
    response = client.get(PAGE, {"split": "demo"})
    assert response.status_code == 200
    figures = response.context["figures"]
    for item in figures:  # each chart on the page is its figure's own
        assert str(item["svg"]) == (DRAW(item["f"].chart, title=item["f"].title) or "")
    return figures


def test_a_page_made_again_draws_only_the_charts_whose_data_changed(client, drawn,
                                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_published")
        call_command("make_demo_plan")
    cache.clear()
    first = shown(client)
    charts = [item["f"].title for item in first]
    assert len(charts) > 3 and sorted(drawn) == sorted(charts)  # the first page draws every chart

    split = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    drawn.clear()
    board_cache_invalidate(split_id=split.pk)  # a score landed elsewhere on the board: the same figures
    assert [item["f"].title for item in shown(client)] == [item["f"].title for item in first]
    assert drawn == []

    entry = Submission.objects.filter(split=split, status=Submission.Status.SCORED).exclude(
        source=Submission.Source.REPORTED).order_by("pk").first().model_entry
    entry.name = "Renamed-VL-9B"
    entry.save()  # the figures that name each entry change; the judge's cascade and the papers' rows do not
    board_cache_invalidate(split_id=split.pk)
    again = shown(client)
    assert any("Renamed-VL-9B" in str(item["svg"]) for item in again)
    assert 0 < len(drawn) < len(charts), drawn
    svg = client.get(f"{PAGE}{again[0]['f'].key}.svg", {"split": "demo"})
    assert svg.status_code == 200 and b"Renamed-VL-9B" in svg.content
