"""A board's kept rows follow PostgreSQL's log of the writes to them (issue 34: what a read after a score landed costs
grows with the change, not with the board): the triggers log every write, the site's or another's; a read takes the
changes of the transactions it had not seen, one committed after the read before it included; pruned changes send
the reader back to the board's digest."""
from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard import selectors, services
from leaderboard.models import BoardChange, BoardChangeHorizon
from scoring.models import Sample, Score
from tests.leaderboard.conftest import EPIC_LEAVES, board_test_split, make_entry, make_scored, random_scores

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def board():
    assert connection.vendor == "postgresql"
    split = board_test_split("epic-bench")
    for i in range(40):
        Sample.objects.create(split=split, key=f"e{i:03d}", position=i, task=EPIC_LEAVES[i % 2])
    subs = [make_scored(split, make_entry(f"Logged-VL-{i}"), random_scores(i, 40, 0.2 + i / 20)) for i in range(12)]
    return split, subs


def other_session() -> psycopg.Connection:
    """A connection of another process (autocommit unless a transaction is opened): what a worker or an admin's SQL
    writes, which this process's in-memory cache never hears of."""
    s = connection.settings_dict
    return psycopg.connect(dbname=s["NAME"], user=s["USER"], password=s["PASSWORD"] or None,
                           host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, autocommit=True)


def row_of(split, submission_id: int):
    return next(r for r in selectors.board_rows_current(split_id=split.pk) if r.submission_id == submission_id)


def test_a_write_no_column_of_the_stamp_shows_is_read_from_the_log_alone(board):
    # Given a board read once in this process
    split, subs = board
    target = subs[3]
    assert row_of(split, target.pk).values.get("BA") is None
    # When another process changes a score's breakdown in SQL, its updated_at left as it was
    with other_session() as other:
        other.execute("UPDATE scoring_score SET breakdown = '{\"BA\": 61.5}' WHERE submission_id = %s", [target.pk])
    # Then the next read shows it, reading that row alone: no digest of the board's rows
    with CaptureQueriesContext(connection) as captured:
        assert row_of(split, target.pk).values["BA"] == 61.5
    sql = [q["sql"] for q in captured.captured_queries]
    assert not any("MD5(" in q for q in sql), sql
    assert any(f"IN ({target.pk})" in q for q in sql), sql
    assert selectors.board_rows_current(split_id=split.pk) == selectors._load_rows(split.pk)


def test_a_transaction_in_progress_at_a_read_is_read_when_it_has_committed(board):
    # Given a board read once, and another process's transaction that changed a score and has not committed
    split, subs = board
    target = subs[5]
    before = row_of(split, target.pk).overall
    with other_session() as other:
        other.execute("BEGIN")
        other.execute("UPDATE scoring_score SET overall = 99.5 WHERE submission_id = %s", [target.pk])
        # When the board is read while it is in progress, and a later transaction commits a change of its own
        assert row_of(split, target.pk).overall == before
        with other_session() as third:
            third.execute("UPDATE scoring_score SET overall = 1.5 WHERE submission_id = %s", [subs[6].pk])
        assert row_of(split, subs[6].pk).overall == 1.5
        # Then once the first commits, the next read shows its change too (its transaction began before the
        # last read's snapshot: a log read only from that snapshot's newest transaction on would miss it)
        other.execute("COMMIT")
    assert row_of(split, target.pk).overall == 99.5
    assert selectors.board_rows_current(split_id=split.pk) == selectors._load_rows(split.pk)


def test_changes_made_in_the_readers_own_transaction_are_read_once(board):
    # Given a board read once
    split, subs = board
    selectors.board_rows_current(split_id=split.pk)
    with transaction.atomic():
        # When a transaction changes a score and reads the board, twice
        Score.objects.filter(submission=subs[2]).update(overall=77.0)
        assert row_of(split, subs[2].pk).overall == 77.0
        with CaptureQueriesContext(connection) as captured:
            assert row_of(split, subs[2].pk).overall == 77.0
        # Then the second read reads no row again; a second change in it is read
        assert not any("scoring_submission" in q["sql"] for q in captured.captured_queries)
        Score.objects.filter(submission=subs[2]).update(overall=78.0)
        assert row_of(split, subs[2].pk).overall == 78.0
    assert row_of(split, subs[2].pk).overall == 78.0


def test_pruned_changes_send_the_reader_to_the_digest(board):
    # Given a board read once, then a change, and the log pruned past it (its entries made to look two hours old)
    split, subs = board
    selectors.board_rows_current(split_id=split.pk)
    with other_session() as other:
        other.execute("UPDATE scoring_score SET overall = 12.25 WHERE submission_id = %s", [subs[1].pk])
    BoardChange.objects.update(at=timezone.now() - timedelta(hours=2))
    assert services.board_changes_prune() > 0
    assert BoardChange.objects.count() == 0 and BoardChangeHorizon.objects.get().below > 0
    # When the board is read
    with CaptureQueriesContext(connection) as captured:
        row = row_of(split, subs[1].pk)
    # Then it read the board's digest, and shows the change
    assert any("MD5(" in q["sql"] for q in captured.captured_queries)
    assert row.overall == 12.25
    assert selectors.board_rows_current(split_id=split.pk) == selectors._load_rows(split.pk)


def test_a_comparison_stored_by_another_process_is_read_from_the_log_alone(board):
    # Given a board's data read once in this process (rows and stored comparisons)
    split, subs = board
    a, b = sorted((subs[0].pk, subs[1].pk))
    assert frozenset((a, b)) not in selectors.board_data(split=split).pairs
    # When a worker stores the comparison of two of its rows
    with other_session() as other:
        other.execute("INSERT INTO leaderboard_boardcomparison (split_id, a_id, b_id, difference, p_value, "
                      "shared_units, computed_at) VALUES (%s, %s, %s, 1.5, 0.031, 40, now())", [split.pk, a, b])
    # Then the next read has it, with no digest of the board's rows or comparisons read
    with CaptureQueriesContext(connection) as captured:
        pair = selectors.board_data(split=split).pairs[frozenset((a, b))]
    assert (pair.p_value, pair.shared_units) == (0.031, 40)
    assert not any("MD5(" in q["sql"] for q in captured.captured_queries)
    # And when it is deleted, the next read has it no more
    with other_session() as other:
        other.execute("DELETE FROM leaderboard_boardcomparison WHERE a_id = %s AND b_id = %s", [a, b])
    assert frozenset((a, b)) not in selectors.board_data(split=split).pairs
