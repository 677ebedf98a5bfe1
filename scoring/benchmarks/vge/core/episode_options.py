"""Episode options besides λ (`task_defs.episode_lambda`) and the perturbation (`perturb`): how much of its past an
agent is shown (`history`) and how its goals are worded (`instruction`, `rephrase`). They change what an agent
sees, never what the engine does, so a replay with the same outputs plays the same episode. Pure."""
from __future__ import annotations

from typing import Any, Sequence, TypeVar

from scoring.benchmarks.vge.core.rephrase import ORIGINAL, STYLES

HISTORY_OPTION = "history"
INSTRUCTION_OPTION = "instruction"
PERTURBATION_OPTION = "perturbation"
HISTORY_FULL = "full"
HISTORY_MAX = 1000  # past turns; ours, far above any budget of the demo library
DEFAULT_INSTRUCTION = ORIGINAL

T = TypeVar("T")


def episode_history(value: Any) -> int | None:
    """The number of past turns an agent is shown, from an option's value: a whole number 0..HISTORY_MAX (or its
    text), or "full" (also None or ""), returned as None. ValueError saying what is wrong otherwise."""
    if value is None or value == "" or (isinstance(value, str) and value.strip().lower() == HISTORY_FULL):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"history must be \"{HISTORY_FULL}\" or a whole number from 0 to {HISTORY_MAX}, "
                         f"not {value!r}")
    if not 0 <= value <= HISTORY_MAX:
        raise ValueError(f"history must be from 0 to {HISTORY_MAX} past turns (or \"{HISTORY_FULL}\"), not {value}")
    return value


def history_text(history: int | None) -> str:
    return HISTORY_FULL if history is None else str(history)


def episode_instruction(value: Any) -> str:
    """The instruction style from an option's value ("original" when None or ""); ValueError otherwise."""
    if value is None or value == "":
        return DEFAULT_INSTRUCTION
    if isinstance(value, str) and value.strip().lower() in STYLES:
        return value.strip().lower()
    raise ValueError(f"instruction must be one of {', '.join(STYLES)}, not {value!r}")


def history_window(trace: Sequence[T], history: int | None) -> list[T]:
    """The past turns an agent played with `history` is shown: the last `history` of them (all for None)."""
    if history is None:
        return list(trace)
    return list(trace[max(0, len(trace) - history):])
