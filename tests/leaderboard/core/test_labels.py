import math

from leaderboard.core.labels import humanize, outcome_label, task_labels, value_text
from scoring.benchmarks import board_for


def test_internal_names_read_as_plain_words():
    assert humanize("weight_binary") == "Weight of the binary part"
    assert humanize("localization_score") == "Localization score"
    assert humanize("points_px") == "Points (pixels)"
    assert humanize("Already plain") == "Already plain"
    assert outcome_label("low_iou") == "low IoU" and outcome_label("") == "ok" and outcome_label("gave_up") == "gave up"


def test_tasks_take_their_board_labels_and_unknown_ones_their_last_part():
    epic = task_labels(board_for("epic-bench"), ["Manipulation/ContactRelationship/ContactRelationship_TypeOne"])
    assert epic == {"Manipulation/ContactRelationship/ContactRelationship_TypeOne": "CR · CR-TypeOne"}
    assert task_labels(board_for("plan-bench"), ["MD"]) == {"MD": "Mirror Distinction (MD)"}
    assert task_labels(None, ["A/b_c"]) == {"A/b_c": "b c"}


def test_values_never_show_python_literals():
    assert [value_text(v) for v in (None, True, False, 1.0, 0.3333333, math.nan, [0.5, None], "x")] == \
        ["–", "yes", "no", "1", "0.333", "–", "0.5, –", "x"]
