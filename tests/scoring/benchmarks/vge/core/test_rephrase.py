"""The instruction option's second wording, and the history option's window (issue 28, App. C and E.2)."""
from __future__ import annotations

import pytest

from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.episode_options import (
    episode_history,
    episode_instruction,
    history_text,
    history_window,
)
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.rephrase import (
    REPHRASED_FIRST,
    REPHRASED_NEXT,
    instruction_shown,
    rephrase_instruction,
    rephrased_instructions,
)
from scoring.benchmarks.vge.core.task_defs import TEMPLATES_FIRST, TEMPLATES_NEXT


@pytest.fixture(scope="module")
def demo_tasks():
    _, tasks = build_library()
    return [*tasks, practice.task()]


def test_every_demo_goal_gets_a_second_wording_that_keeps_its_outcome(demo_tasks):
    """Issue 28 (App. C, E.2): "instruction: an alternative verbalisation of each goal from a second generator or
    rewriting style, deterministic per task". Every goal of every demo task (the practice task too) is reworded:
    never empty, never the original text, the same for every call, and a generated instruction keeps the goal's
    outcome (the transition description naming the component, action and parameters) word for word."""
    assert len(demo_tasks) == 207
    frames = (*TEMPLATES_FIRST, *TEMPLATES_NEXT)
    for task in demo_tasks:
        worded = rephrased_instructions(task_id=task.id, instructions=task.instructions)
        assert worded == rephrased_instructions(task_id=task.id, instructions=list(task.instructions))
        assert len(worded) == len(task.instructions)
        for index, (original, other) in enumerate(zip(task.instructions, worded)):
            assert other.strip() and other != original, (task.id, index)
            lead = next((f.split("{d}")[0] for f in frames if original.startswith(f.split("{d}")[0])), None)
            if lead is not None:
                outcome = original[len(lead):]
                assert other.endswith(": " + outcome) and other in {
                    f.format(d=outcome) for f in (REPHRASED_NEXT if index else REPHRASED_FIRST)}
            else:  # the practice task's own sentences: kept after a lead-in
                assert other.lower().endswith(original.lower())


def test_the_wording_depends_on_the_task_and_goal_only(demo_tasks):
    text = "Operate the device until this happens: The display lights up."
    chosen = {rephrase_instruction(task_id=t.id, index=0, text=text) for t in demo_tasks}
    assert len(chosen) == len(REPHRASED_FIRST)  # the frame varies over tasks...
    assert rephrase_instruction(task_id="a/t1", index=0, text=text) == rephrase_instruction(
        task_id="a/t1", index=0, text=text)  # ...and never over calls
    assert rephrase_instruction(task_id="a/t1", index=0, text="") == "Work the device towards its next state."
    assert rephrase_instruction(task_id="a/t1", index=1, text="LEDs blink.") == "Your next goal: LEDs blink."
    assert instruction_shown(task_id="a/t1", index=0, text=text, style="original") == text
    assert instruction_shown(task_id="a/t1", index=2, text=None, style="rephrased") is None


def test_history_and_instruction_options_parse():
    """Issue 28 (App. C): "history: the number of past turns shown to the agent in the observation's trace, 0 / 3 /
    full"."""
    assert [episode_history(v) for v in (None, "", "full", " FULL ", 0, "3", 3.0, 1000)] == [
        None, None, None, None, 0, 3, 3, 1000]
    for bad in (-1, 1001, "x", 2.5, True):
        with pytest.raises(ValueError, match="history"):
            episode_history(bad)
    assert history_text(None) == "full" and history_text(3) == "3"
    assert [history_window([1, 2, 3, 4], h) for h in (None, 0, 3, 9)] == [[1, 2, 3, 4], [], [2, 3, 4], [1, 2, 3, 4]]
    assert episode_instruction(None) == "original" and episode_instruction(" Rephrased") == "rephrased"
    with pytest.raises(ValueError, match="instruction must be one of original, rephrased"):
        episode_instruction("pirate")
