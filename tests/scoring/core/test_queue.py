"""The queue's pure arithmetic: medians and the estimated wait."""
import pytest

from scoring.core.queue import estimated_wait_seconds, median_seconds


def test_median_leaves_out_negative_durations_and_is_none_without_any():
    assert median_seconds([10, 20, 30, -5]) == 20
    assert median_seconds([]) is None
    assert median_seconds([-1]) is None


def test_wait_is_the_work_ahead_shared_by_the_workers_then_the_job_itself():
    # Given 4 jobs of kind a (60 s each) ahead, one of kind b running for 10 s of its 30
    wait = estimated_wait_seconds(own="a", queued_ahead={"a": 4}, running_elapsed=[("b", 10.0)],
                                  medians={"a": 60.0, "b": 30.0}, workers=2)
    # then (4 * 60 + 20) / 2 + 60
    assert wait == pytest.approx(190.0)


def test_a_kind_without_a_median_takes_the_median_of_the_others():
    wait = estimated_wait_seconds(own="c", queued_ahead={}, running_elapsed=[], medians={"a": 10.0, "b": 30.0,
                                                                                          "c": None}, workers=1)
    assert wait == pytest.approx(20.0)


def test_no_estimate_without_workers_or_without_any_median():
    assert estimated_wait_seconds(own="a", queued_ahead={}, running_elapsed=[], medians={"a": 5.0}, workers=0) is None
    assert estimated_wait_seconds(own="a", queued_ahead={}, running_elapsed=[], medians={}, workers=3) is None


def test_a_job_running_past_its_median_adds_no_negative_work():
    wait = estimated_wait_seconds(own="a", queued_ahead={}, running_elapsed=[("a", 500.0)], medians={"a": 60.0},
                                  workers=1)
    assert wait == pytest.approx(60.0)
