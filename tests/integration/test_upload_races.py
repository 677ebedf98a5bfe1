"""The parallel-upload races of tests/scoring/test_upload_races.py (issue 13, defects 2 and 7), run again on
PostgreSQL, where concurrent transactions really interleave (row locks, not SQLite's single writer)."""
from __future__ import annotations

import pytest
from django.db import connection

from tests.scoring.test_upload_races import (  # noqa: F401 - collected here again, under this module's marks
    test_parallel_uploads_creating_one_new_model_name_make_one_entry,
    test_twenty_parallel_uploads_against_quota_five_accept_exactly_five,
    test_two_users_racing_for_a_new_model_name_one_owns_it_the_other_is_refused,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_races_here_run_on_postgresql():
    assert connection.vendor == "postgresql"
