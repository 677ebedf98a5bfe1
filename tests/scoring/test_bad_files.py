"""A file's own faults are the submitter's problems: JSON nested too deeply, an integer too long to read, a raw
EPIC line whose `images` is not a list. Through the Celery task (eager, with its retries), each benchmark fails the
submission at once, blames the file, not the site, and names the line."""
from __future__ import annotations

import pytest

from scoring import tasks
from scoring.models import Submission
from tests.scoring.bench_splits import BENCHMARKS, good_line, options_for, split_of, upload

pytestmark = pytest.mark.django_db

DEEPLY_NESTED = '{"task": ' + "[" * 100_000 + "]" * 100_000 + "}"
HUGE_INTEGER = '{"id": ' + "9" * 5000 + ', "task": 1}'
IMAGES_NOT_A_LIST = '{"images": 5, "response": "{\\"number_of_objects\\": 1}"}'


@pytest.mark.parametrize("bad_line", [DEEPLY_NESTED, HUGE_INTEGER, IMAGES_NOT_A_LIST],
                         ids=["nested", "huge-integer", "images-not-a-list"])
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_bad_line_fails_the_file_once_and_names_the_line(celery_eager, user, tmp_path, benchmark, bad_line):
    # Given a file whose second line is broken in a way the user caused
    split = split_of(benchmark, tmp_path)
    body = f"{good_line(benchmark)}\n{bad_line}\n".encode()
    submission = upload(user, split, body, options=options_for(benchmark))

    # When the worker's task runs it (retries included)
    tasks.score_submission.apply(args=(submission.pk,))

    # Then it failed once, because of the file, and says where
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert submission.failure_is_site_error is False, submission.error_message
    assert submission.attempts == 1
    assert "error on our side" not in submission.error_message
    assert any(p["line"] == 2 for p in submission.error_report), submission.error_report
