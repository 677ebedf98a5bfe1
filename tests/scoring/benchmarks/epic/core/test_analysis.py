"""EPIC-Bench's Analysis figures on a small fixed fixture, against values worked out by hand."""
from __future__ import annotations

from scoring.benchmarks.epic.core import fields as F
from scoring.benchmarks.epic.core import metrics as M
from scoring.benchmarks.epic.core.analysis import count_bucket, figures, soft_count
from scoring.core.analysis import ModelSamples, SampleRow


def tl(key: str, gt: int, pred, *, score: float, loc: dict | None = None, invalid: bool = False,
       outcome: str = "ok") -> SampleRow:
    """A Color (TargetLocalization) sample with the count and localization details the scorer stores."""
    count = {"pred_count": pred, "gt_count": gt, "exact": False}
    details = {"count": count}
    if loc is not None:
        details["localization"] = loc
    components = {"localization_score": (loc or {}).get("iou", 0.0), "count_score": soft_count(pred, gt),
                  "path_score": 0.0, "binary_score": 0.0, "weight_localization": 0.5, "weight_count": 0.5,
                  "weight_path": 0.0, "weight_binary": 0.0}
    return SampleRow(key=key, task="Color", category="TargetLocalization", score=score, outcome=outcome,
                     invalid=invalid, components=components, details=details)


def counted(key: str, category: str, task: str, gt: int, pred) -> SampleRow:
    """A sample of another counted family (VM, CR) with only the count details the scorer stores."""
    return SampleRow(key=key, task=task, category=category, score=soft_count(pred, gt), outcome="ok",
                     details={"count": {"pred_count": pred, "gt_count": gt, "exact": False}})


def fp(key: str, path: float) -> SampleRow:
    return SampleRow(key=key, task="FeasiblePath_Ego", category="Navigation", score=path,
                     outcome="ok" if path >= 0.5 else "low_path_score",
                     components={"path_score": path, "weight_path": 1.0, "localization_score": 0.0,
                                 "weight_localization": 0.0})


A = ModelSamples("A", "A", samples=(
    tl("a1", 1, 1, score=1.0, loc={"iou": 1.0, "pred_boxes": 1, "boxes_off_image": 0, "gt_empty": False}),
    tl("a2", 2, 3, score=0.5, loc={"iou": 0.4, "pred_boxes": 1, "boxes_off_image": 1, "gt_empty": False},
       outcome="wrong_count"),
    tl("a3", 4, 4, score=0.6, loc={"iou": 0.2, "pred_boxes": 2, "coordinate_system_mismatch": True,
                                   "gt_empty": False}),
    tl("a4", 12, 6, score=0.25, loc={"iou": 0.0, "pred_empty": True, "gt_empty": False}, outcome="wrong_count"),
    fp("a5", 0.8),
))
B = ModelSamples("B", "B", samples=(
    tl("b1", 1, None, score=0.0, invalid=True, outcome="invalid"),  # no valid response: still in bucket "1"
    tl("b2", 5, 4, score=0.4, loc={"iou": 0.0, "pred_boxes": 1, "gt_empty": True}, outcome="wrong_count"),
))


def by(figure, **match):
    return [dict(zip(figure.columns, r)) for r in figure.rows
            if all(dict(zip(figure.columns, r))[k] == v for k, v in match.items())]


def test_count_buckets_and_soft_score():
    assert [count_bucket(n) for n in (0, 1, 2, 3, 4, 5, 6, 10, 11, 500)] == [
        "0", "1", "2", "3", "4–5", "4–5", "6–10", "6–10", ">10", ">10"]
    assert soft_count(3, 2) == 0.5 and soft_count(6, 12) == 0.5 and soft_count(None, 4) == 0.0
    assert soft_count(40, 4) == 0.0  # capped at 0
    assert soft_count(0, 0) == 1.0 and soft_count(2, 0) == 0.0 and soft_count(None, 0) == 0.0  # as the scorer


def test_counting_by_true_count():
    fig = {f.key: f for f in figures([A, B])}["counting-exact"]
    # A: 1 -> 1 (exact), 2 -> 3 (soft 0.5), 4 -> 4 (exact), 12 -> 6 (soft 0.5); B: invalid in "1", 5 -> 4 (0.8).
    assert by(fig, model="A", tasks="TL+CR", true_count="1") == [
        {"model": "A", "tasks": "TL+CR", "true_count": "1", "n": 1, "exact_accuracy": 100.0,
         "soft_count_score": 100.0}]
    assert by(fig, model="A", true_count="2")[0]["soft_count_score"] == 50.0
    assert by(fig, model="A", true_count="2")[0]["exact_accuracy"] == 0.0
    assert by(fig, model="A", true_count="4–5")[0]["exact_accuracy"] == 100.0
    assert by(fig, model="A", true_count=">10")[0]["soft_count_score"] == 50.0
    assert by(fig, model="A", true_count="3")[0]["n"] == 0 and by(fig, model="A", true_count="3")[0][
        "exact_accuracy"] is None
    assert by(fig, model="B", true_count="1")[0]["soft_count_score"] == 0.0
    assert by(fig, model="B", true_count="4–5")[0]["soft_count_score"] == 80.0
    assert fig.n == 6 and fig.chart.x[4] == "4–5"
    assert [s.name for s in fig.chart.series] == ["A · TL+CR", "A · VM", "B · TL+CR", "B · VM"]
    assert [s.values[1] for s in fig.chart.series] == [100.0, None, 0.0, None]


def test_counting_has_a_zero_target_bin_and_keeps_vm_apart_from_tl_and_cr():
    """Issue 28, as the paper (Fig. 4): "Include true count 0 (the zero-target hallucination finding) and keep VM
    apart from TL and CR as the paper's figure does." """
    model = ModelSamples("C", "C", samples=(
        tl("c1", 0, 0, score=1.0),  # no target, none claimed
        tl("c2", 0, 2, score=0.0),  # no target, two hallucinated
        counted("c3", "Manipulation", "ContactRelationship_TypeOne", 0, 1),  # CR pools with TL
        counted("c4", "Navigation", "VisualMatching", 0, 0),  # VM: its own series
        counted("c5", "Navigation", "VisualMatching", 2, 1),
    ))
    exact, soft = (f for f in figures([model]) if f.key in ("counting-exact", "counting-soft"))
    assert exact.chart.x[0] == "0" and exact.n == 5
    zero = by(exact, model="C", tasks="TL+CR", true_count="0")[0]
    assert (zero["n"], zero["exact_accuracy"], zero["soft_count_score"]) == (3, round(100 / 3, 2), round(100 / 3, 2))
    vm = {r["true_count"]: r for r in by(exact, model="C", tasks="VM") if r["n"]}
    assert set(vm) == {"0", "2"} and vm["0"]["exact_accuracy"] == 100.0 and vm["2"]["soft_count_score"] == 50.0
    assert [s.name for s in soft.chart.series] == ["C · TL+CR", "C · VM"]
    assert soft.chart.series[1].values[:3] == [100.0, None, 50.0]
    assert exact.title.endswith("as the paper (Fig. 4)") and soft.note.startswith("As the paper (Fig. 4)")


def test_leaf_scores_and_components():
    fig = {f.key: f for f in figures([A, B])}["leaf-scores"]
    color = by(fig, model="A", leaf="Color")[0]
    assert color["n"] == 4 and color["score"] == round(100 * (1 + 0.5 + 0.6 + 0.25) / 4, 2)  # 58.75
    assert color["localization_score"] == 40.0  # (1 + .4 + .2 + 0) / 4
    assert color["count_score"] == round(100 * (1 + 0.5 + 1 + 0.5) / 4, 2)  # 75.0
    assert color["path_score"] is None  # Color does not weigh a path
    ego = by(fig, model="A", leaf="FeasiblePath_Ego")[0]
    assert (ego["n"], ego["score"], ego["path_score"], ego["localization_score"]) == (1, 80.0, 80.0, None)
    assert len(fig.chart.x) == 23 and len(fig.rows) == 2 * 23


def test_invalid_responses():
    fig = {f.key: f for f in figures([A, B])}["invalid-responses"]
    assert by(fig, model="B", leaf="Color")[0] == {"model": "B", "leaf": "Color", "n": 2, "invalid": 1, "wrong": 1,
                                                   "invalid_share": 50.0, "wrong_share": 50.0}
    assert by(fig, model="A", leaf="Color")[0]["wrong"] == 2 and by(fig, model="A", leaf="Color")[0]["invalid"] == 0


def test_localization_quality():
    fig = {f.key: f for f in figures([A, B])}["localization"]
    ba = by(fig, model="A", group="BA")[0]
    assert ba["n"] == 4 and ba["mean_iou"] == 40.0
    assert (ba["iou_0"], ba["iou_(0,0.25]"], ba["iou_(0.25,0.5]"], ba["iou_(0.75,1]"]) == (25.0, 25.0, 25.0, 25.0)
    assert (ba["no_box_share"], ba["off_image_share"], ba["coordinate_mismatch_share"]) == (25.0, 25.0, 25.0)
    # B's only localized sample has an empty target: not counted.
    assert by(fig, model="B", group="BA")[0]["n"] == 0


def test_scorer_details_feed_the_figures():
    """The scorer keeps the true count on an invalid answer and counts boxes off the image."""
    nvr = M.count("No Valid Response", gt_count=3, precise=False, in_description=False, compat=False)
    assert nvr.details["gt_count"] == 3 and nvr.details["pred_count"] is None
    # A 100 x 50 image: the second box reaches past the right edge, the third is above the image (pixels).
    boxes = [[10, 10, 20, 20], [90, 10, 120, 20], [0, -5, 10, 5]]
    assert F.boxes_off_image(boxes, 50, 100, F.ABSOLUTE) == 2
    assert F.boxes_off_image([[0.1, 0.1, 0.5, 0.5]], 50, 100, F.AUTO) == 0  # read as 0-1, inside
