"""What moved between two scorer versions (leaderboard.core.diff): competition ranks, moved / added / dropped rows,
the largest change first."""
from __future__ import annotations

from leaderboard.core.diff import VersionRow, moved, ranks, summary, version_diff


def test_ranks_are_competition_ranks_higher_first_and_rows_without_a_figure_get_none():
    rows = [VersionRow(1, "a", 50.0), VersionRow(2, "b", 70.0), VersionRow(3, "c", 50.0), VersionRow(4, "d", None),
            VersionRow(5, "e", 10.0)]
    assert ranks(rows) == {2: 1, 1: 2, 3: 2, 5: 4}


def test_a_row_moves_when_its_figure_or_its_rank_changes():
    old = [VersionRow(1, "a", 80.0), VersionRow(2, "b", 60.0), VersionRow(3, "paper", 50.0, reported=True),
           VersionRow(4, "d", 10.0)]
    new = [VersionRow(1, "a", 79.0), VersionRow(2, "b", 40.0), VersionRow(3, "paper", 50.0, reported=True),
           VersionRow(5, "e", 30.0)]
    rows = version_diff(old, new)
    by = {r.key: r for r in rows}
    assert [r.key for r in moved(rows)] == [2, 1, 3]  # largest change of figure first, then the paper's (rank only)
    assert (by[2].delta, by[2].old_rank, by[2].new_rank, by[2].rank_change) == (-20.0, 2, 3, -1)
    assert (by[3].delta, by[3].rank_change, by[3].status) == (0.0, 1, "moved")
    assert by[5].status == "added" and by[5].old is None and by[5].delta is None
    assert by[4].status == "dropped" and by[4].new_rank is None
    assert summary(rows) == {"moved": 3, "added": 1, "dropped": 1, "same": 0}


def test_floating_point_noise_is_not_a_move():
    rows = version_diff([VersionRow(1, "a", 33.333333333333336)], [VersionRow(1, "a", 33.33333333333333)])
    assert rows[0].status == "same"
