from __future__ import annotations

from scoring.benchmarks.plan.core.aggregate import COLUMNS, Row, summarise
from scoring.benchmarks.plan.core.types import SUBTASKS, ItemType


def test_columns_are_the_board_keys() -> None:
    assert COLUMNS[:4] == ("overall", "spatial_cognition", "temporal_reasoning", "multi_step_planning")
    assert set(SUBTASKS) <= set(COLUMNS) and {"single_choice", "open"} <= set(COLUMNS) and len(COLUMNS) == 22


def test_final_summary_has_accuracies_and_intervals() -> None:
    rows = [Row("Spatial Cognition", "OO", ItemType.SINGLE_CHOICE, True),
            Row("Spatial Cognition", "OO", ItemType.OPEN, False),
            Row("Temporal Reasoning", "PC", ItemType.OPEN, True),
            Row("Multi-Step Planning", "DP", ItemType.OPEN, True)]
    summary = summarise(rows)
    assert summary.final and summary.overall == 75.0
    assert summary.breakdown["spatial_cognition"] == 50.0 and summary.breakdown["PC"] == 100.0
    assert summary.breakdown["single_choice"] == 100.0 and abs(summary.breakdown["open"] - 66.6667) < 1e-3
    assert summary.breakdown["TD"] is None and summary.counts["TD"] == 0
    low, high = summary.intervals["overall"]
    assert 0 <= low <= 75.0 <= high <= 100


def test_undecided_items_give_a_range_and_no_final_value() -> None:
    rows = [Row("Spatial Cognition", "OO", ItemType.OPEN, True),
            Row("Spatial Cognition", "OO", ItemType.OPEN, None),
            Row("Temporal Reasoning", "PC", ItemType.OPEN, False),
            Row("Temporal Reasoning", "PC", ItemType.OPEN, None)]
    summary = summarise(rows)
    assert not summary.final and summary.undecided == 2 and summary.overall is None
    assert summary.ranges["overall"] == (25.0, 75.0) and summary.ranges["PC"] == (0.0, 50.0)
    assert summary.intervals == {}


def test_same_rows_give_the_same_intervals() -> None:
    rows = [Row("Spatial Cognition", "OO", ItemType.OPEN, i % 3 == 0) for i in range(30)]
    assert summarise(rows).intervals == summarise(rows).intervals
