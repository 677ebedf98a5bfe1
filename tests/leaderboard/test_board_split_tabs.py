"""The board opens on a split with entries: a split just published into (no entries yet) is not its first tab,
whatever its name; the curator's default split still comes first."""
from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from leaderboard.selectors import benchmark_split, board_splits
from scoring.models import Split, Submission

from .conftest import benchmark, make_entry, make_reported

pytestmark = pytest.mark.django_db


@pytest.fixture
def bench():
    cache.clear()  # boards remember their split by slug
    bench = benchmark("epic-bench")
    Split.objects.filter(benchmark=bench).delete()
    yield bench
    cache.clear()


def _tabs(client) -> tuple[list[str], str]:
    html = client.get("/leaderboard/epic-bench/").content.decode()
    tabs = re.findall(r'class="split-tab(?: current)?"[^>]*>([^<]+)</a>', html)
    current = re.search(r'class="split-tab current"[^>]*>([^<]+)</a>', html).group(1)
    return tabs, current


def test_a_split_just_published_into_is_neither_first_nor_opened(client, bench):
    test = Split.objects.create(benchmark=bench, name="test")
    make_reported(test, make_entry("Model-A"), 42.0)
    Split.objects.create(benchmark=bench, name="annotated")  # published into: no entries, first by name
    assert benchmark_split(slug="epic-bench", split_name=None)[1] == test
    assert _tabs(client) == (["test", "annotated"], "test")
    # ?split= still opens the empty split when asked for by name
    assert client.get("/leaderboard/epic-bench/?split=annotated").context["split"].name == "annotated"


def test_entries_count_only_when_a_board_would_show_them(client, bench):
    test = Split.objects.create(benchmark=bench, name="test")
    make_reported(test, make_entry("Model-A"), 42.0)
    annotated = Split.objects.create(benchmark=bench, name="annotated")
    hidden = make_reported(annotated, make_entry("Model-B"), 10.0)
    Submission.objects.filter(pk=hidden.pk).update(visibility=Submission.Visibility.PRIVATE)
    Submission.objects.create(model_entry=make_entry("Model-C"), split=annotated, status=Submission.Status.QUEUED)
    assert [s.name for s in board_splits(benchmark=bench)] == ["test", "annotated"]
    Submission.objects.filter(pk=hidden.pk).update(visibility=Submission.Visibility.PUBLIC)
    assert [s.name for s in board_splits(benchmark=bench)] == ["annotated", "test"]  # both with entries: by name


def test_the_default_split_comes_first_even_when_empty(client, bench):
    test = Split.objects.create(benchmark=bench, name="test")
    make_reported(test, make_entry("Model-A"), 42.0)
    Split.objects.create(benchmark=bench, name="zeta", is_default=True)
    Split.objects.create(benchmark=bench, name="annotated")
    assert _tabs(client) == (["zeta", "test", "annotated"], "zeta")
