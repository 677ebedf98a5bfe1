"""make_large_comparisons (issue 34): the generated hub holds the comparisons the worker stores as scores land, so a
board view of it computes no pairs inline that a real hub's would find stored."""
import pytest
from django.core.management import call_command

from leaderboard.models import BoardComparison
from scoring.models import Split, Submission
from tests.scoring.test_make_large_hub import demo_plan  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def test_each_generated_row_is_compared_with_its_neighbour_by_the_headline(demo_plan):
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))

    split = Split.objects.get(benchmark__slug="plan-bench", name="scale")
    ranked = list(Submission.objects.filter(split=split).order_by("-score__overall", "pk").values_list("pk", flat=True))
    assert len(ranked) == 20
    stored = {(c.a_id, c.b_id): c for c in BoardComparison.objects.filter(split=split)}
    assert set(stored) == {(min(a, b), max(a, b)) for a, b in zip(ranked, ranked[1:])}
    assert all(c.shared_units == 7 for c in stored.values())  # compared on the split's seven samples

    call_command("make_large_comparisons", stdout=open("/dev/null", "w"))  # again: nothing new
    assert BoardComparison.objects.filter(split=split).count() == 19
