"""Review rules: state machine, rounds, eligibility, form checks, diffs, agreement, dashboard."""
from datetime import datetime, timedelta

import numpy as np
import pytest

from annotation.core import rle
from annotation.core.review import (
    Action,
    AgreementRow,
    ItemRow,
    Policy,
    ReviewRecord,
    ReviewRow,
    TransitionError,
    Verdict,
    active_seconds,
    check_markers,
    check_review,
    choose_share,
    dashboard,
    diff_snapshots,
    duration_text,
    progress,
    reviewer_refusal,
    second_opinion_agreement,
    transition,
    verdict_action,
)


def box(y1, y2, x1, x2, size=(40, 40)):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def test_state_machine_allows_the_workflow_and_names_what_is_allowed_otherwise():
    assert transition("in_progress", Action.SUBMIT) == "submitted"
    assert transition("submitted", Action.REVISE) == "needs_revision"
    assert transition("accepted", Action.PUBLISH) == "published"
    with pytest.raises(TransitionError, match="cannot publish an item that is submitted"):
        transition("submitted", Action.PUBLISH)
    with pytest.raises(TransitionError, match="cannot publish an item that is published"):
        transition("published", Action.PUBLISH)


def test_two_accepts_by_two_reviewers_accept_the_item():
    policy = Policy(rounds_required=2)
    one = progress([ReviewRecord(7, Verdict.ACCEPT, 3)], policy)
    assert one.status == "in_review" and one.current_round == 2 and one.passed_reviewers == (7,)
    assert verdict_action(Verdict.ACCEPT, one, policy) is Action.ACCEPT
    assert verdict_action(Verdict.ACCEPT, progress([], policy), policy) is Action.REVIEW_PASS
    two = progress([ReviewRecord(7, Verdict.ACCEPT, 3), ReviewRecord(8, Verdict.ACCEPT, 3)], policy)
    assert two.status == "accepted"


def test_revise_keeps_passed_rounds_and_the_new_version_restarts_the_failed_round():
    policy = Policy(rounds_required=3)
    reviews = [ReviewRecord(7, Verdict.ACCEPT, 3), ReviewRecord(8, Verdict.REVISE, 3)]
    state = progress(reviews, policy)
    assert state.status == "needs_revision" and state.failed_round == 2 and state.current_round == 2
    state = progress(reviews + [ReviewRecord(8, Verdict.ACCEPT, 5)], policy)
    assert state.current_round == 3 and state.passed_reviewers == (7, 8)


def test_reject_ends_the_cycle():
    state = progress([ReviewRecord(7, Verdict.REJECT, 2), ReviewRecord(8, Verdict.ACCEPT, 2)], Policy())
    assert state.status == "rejected" and state.passed_rounds == 0


def test_annotator_never_reviews_and_a_round_needs_a_new_reviewer():
    policy = Policy(rounds_required=2)
    before = progress([ReviewRecord(7, Verdict.ACCEPT, 3)], policy)
    assert "annotated this item" in reviewer_refusal(5, annotators={5}, before=before, policy=policy)
    assert "round 2 needs a different reviewer" in reviewer_refusal(7, annotators={5}, before=before, policy=policy)
    assert reviewer_refusal(8, annotators={5}, before=before, policy=policy) is None
    assert reviewer_refusal(7, annotators={5}, before=before, policy=Policy(2, distinct_reviewers=False)) is None


def test_review_form_needs_reasons_and_a_comment_unless_it_accepts():
    assert check_review("accept", [], "") == (Verdict.ACCEPT, ())
    with pytest.raises(ValueError, match="reasons: a revise verdict needs at least one reason"):
        check_review("revise", [], "fix it")
    with pytest.raises(ValueError, match="comment: a reject verdict needs a comment"):
        check_review("reject", ["trivially_easy"], "  ")
    with pytest.raises(ValueError, match=r"reasons\[1\]: 'ugly' is not a reason"):
        check_review("revise", ["mask_quality", "ugly"], "x")
    with pytest.raises(ValueError, match="verdict: 'maybe'"):
        check_review("maybe", [], "")


def test_markers_must_lie_on_an_image_of_the_item():
    assert check_markers([{"x": 3, "y": 4.25, "note": "hole"}], [(10, 20)]) == [
        {"image": 0, "x": 3.0, "y": 4.2, "note": "hole"}]
    with pytest.raises(ValueError, match=r"markers\[0\]: \(25, 4\) is outside image 1 \(20x10\)"):
        check_markers([{"x": 25, "y": 4}], [(10, 20)])
    with pytest.raises(ValueError, match=r"markers\[0\].image: 1 is not an image"):
        check_markers([{"image": 1, "x": 1, "y": 1}], [(10, 20)])


def test_diff_reports_changed_labels_and_masks():
    old = {"texts": {"text_label": "the red cup"}, "count": 1, "instances": {"masklet_target": [box(0, 10, 0, 10)]}}
    new = {"texts": {"text_label": "the two red cups"}, "count": 2,
           "instances": {"masklet_target": [box(0, 10, 0, 12), box(20, 30, 20, 30)]}}
    diff = diff_snapshots(old, new)
    assert [(c.field, c.old, c.new) for c in diff.fields] == [
        ("texts.text_label", "the red cup", "the two red cups"), ("count", 1, 2)]
    [layer] = diff.masklets
    assert (layer.before, layer.after, layer.added, layer.removed) == (1, 2, (1,), ())
    assert layer.matched == ((0, 0, pytest.approx(100 / 120, abs=1e-4)),)
    assert not diff.empty
    assert diff_snapshots(new, new).empty


def test_second_opinion_flags_low_agreement_with_the_reasons():
    first = [box(0, 10, 0, 10), box(20, 30, 20, 30)]
    same = second_opinion_agreement(masklet="m", first=first, second=list(first), count_first=2, count_second=2)
    assert not same.low and same.f1 == 1.0 and same.mean_iou == 1.0
    other = second_opinion_agreement(masklet="m", first=first, second=[box(0, 10, 0, 10)], count_first=2,
                                     count_second=1)
    assert other.low and other.f1 == pytest.approx(2 / 3, abs=1e-4)
    assert other.why == ("counts differ (2 vs 1)",)
    far = second_opinion_agreement(masklet="m", first=first, second=[box(30, 40, 0, 10)], count_first=2,
                                   count_second=1)
    assert far.low and any("F1" in why for why in far.why)


def test_share_is_reproducible_and_at_least_one():
    assert choose_share([5, 1, 9, 3], 0.5, seed=1) == choose_share([9, 3, 5, 1], 0.5, seed=1)
    assert len(choose_share(list(range(10)), 0.3, seed=2)) == 3
    assert len(choose_share([4], 0.01, seed=2)) == 1
    with pytest.raises(ValueError, match="share must be in"):
        choose_share([1], 0, seed=1)


def test_active_seconds_caps_idle_gaps():
    t = datetime(2026, 1, 1, 12)
    times = [t, t + timedelta(seconds=60), t + timedelta(seconds=90), t + timedelta(hours=2)]
    assert active_seconds(times, idle_cap_s=300) == 60 + 30 + 300


def test_dashboard_buckets_throughput_reasons_and_agreement():
    items = [ItemRow("todo", None), ItemRow("submitted", 1), ItemRow("submitted", 2), ItemRow("submitted", 2),
             ItemRow("needs_revision", None), ItemRow("published", None)]
    reviews = [ReviewRow("rob", "accept", (), 60), ReviewRow("rob", "revise", ("mask_quality", "label_error"), 120),
               ReviewRow("rita", "reject", ("mask_quality",), 30)]
    agreements = [AgreementRow("anna", "ben", 0.8, 1.0, True, False),
                  AgreementRow("anna", "ben", 0.4, 0.5, False, True)]
    board = dashboard(items=items, rounds_required=2, submissions={"anna": 4}, accepted_by_annotator={"anna": 1},
                      annotator_seconds={"anna": 1800}, reviews=reviews, agreements=agreements)
    assert board.by_state == {"to do": 1, "in progress": 0, "in review round 1": 1, "in review round 2": 2,
                              "needs revision": 1, "accepted": 0, "published": 1, "rejected": 0}
    assert board.annotators["anna"] == {"submissions": 4, "accepted": 1, "seconds": 1800, "time": "30 min 00 s",
                                        "per_hour": 8.0}
    assert board.reviewers["rob"]["reviews"] == 2 and board.reviewers["rob"]["revise"] == 1
    assert board.reviewers["rob"]["per_hour"] == 40.0  # 2 reviews in 3 minutes
    assert board.reasons == {"Mask quality": 2, "Label error": 1}
    assert board.agreement == {"items": 2, "mean_iou": 0.6, "mean_f1": 0.75, "count_agreement": 0.5, "low": 1}
    assert board.agreement_by_annotator["ben"]["items"] == 2


def test_dashboard_time_is_open_to_verdict_and_a_rate_needs_measured_time():
    # Two verdicts 4.5 s after opening, and one given without opening the page: the old board said
    # "Hours 0.0" next to "800 reviews/hour". Now: the time as it is, and no rate from 9 seconds.
    quick = [ReviewRow("rob", "accept", (), 4.5), ReviewRow("rob", "accept", (), 4.5),
             ReviewRow("rob", "revise", ("mask_quality",), None)]
    board = dashboard(items=[], rounds_required=1, submissions={"anna": 3}, accepted_by_annotator={},
                      annotator_seconds={"anna": 20}, reviews=quick, agreements=[])
    assert board.reviewers["rob"] == {"reviews": 3, "accept": 2, "revise": 1, "reject": 0, "timed": 2,
                                      "seconds": 9.0, "time": "9 s", "per_hour": None}
    assert board.annotators["anna"]["per_hour"] is None and board.annotators["anna"]["time"] == "20 s"
    # Thirty reviews of two minutes each (and one untimed, left out of the rate): 30 per hour over 1 h.
    steady = [ReviewRow("rob", "accept", (), 120.0)] * 30 + [ReviewRow("rob", "accept", (), None)]
    board = dashboard(items=[], rounds_required=1, submissions={}, accepted_by_annotator={}, annotator_seconds={},
                      reviews=steady, agreements=[])
    assert board.reviewers["rob"]["per_hour"] == 30.0 and board.reviewers["rob"]["time"] == "1 h 00 min"
    assert duration_text(3725) == "1 h 02 min" and duration_text(250) == "4 min 10 s"
