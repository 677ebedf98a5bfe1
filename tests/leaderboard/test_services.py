"""Significance between submissions is precomputed by the scoring pipeline, once per new score."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import BoardComparison
from leaderboard.services import board_comparisons_update
from scoring import pipeline
from tests.leaderboard.conftest import make_entry, make_reported, make_scored
from tests.scoring.factories import SampleFactory, SplitFactory


@pytest.mark.django_db
def test_scoring_a_submission_stores_its_comparisons(dummy_benchmark, token_client, settings, django_capture_on_commit_callbacks):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="dev")
    for i in range(30):
        SampleFactory(split=split, key=f"k{i}", position=i, task="ab"[i % 2])

    def upload_and_score(lines: bytes, model: str) -> int:
        with django_capture_on_commit_callbacks(execute=False):
            sid = token_client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": "dev", "model": model,
                                                          "file": SimpleUploadedFile("p.txt", lines)},
                                    format="multipart").json()["id"]
        with django_capture_on_commit_callbacks(execute=True):
            assert pipeline.submission_score(submission_id=sid, worker="w") == "scored"
        return sid

    first = upload_and_score(b"1\n" * 30, "Strong")
    assert BoardComparison.objects.count() == 0  # nothing to compare with yet
    second = upload_and_score(b"0\n" * 30, "Weak")
    comparison = BoardComparison.objects.get()
    assert (comparison.a_id, comparison.b_id) == (first, second)
    assert comparison.shared_units == 30 and comparison.difference == pytest.approx(1.0)
    assert comparison.p_value < 0.05


@pytest.mark.django_db
def test_comparisons_skip_reported_rows_and_are_deterministic(epic_split):
    reported = make_reported(epic_split, make_entry("Paper"), 50.0)
    a = make_scored(epic_split, make_entry("A"), [1.0, 0.0] * 20)
    b = make_scored(epic_split, make_entry("B"), [0.0, 1.0] * 20)
    assert board_comparisons_update(submission_id=b.pk) == 1
    first = BoardComparison.objects.get()
    assert {first.a_id, first.b_id} == {a.pk, b.pk} and reported.pk not in (first.a_id, first.b_id)
    board_comparisons_update(submission_id=a.pk)  # recomputing gives the same figures (fixed seed)
    again = BoardComparison.objects.get()
    assert again.p_value == first.p_value and again.difference == 0.0
    assert again.p_value > 0.05
