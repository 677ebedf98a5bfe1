"""Deterministic demo agents for the VGE demo board: an optimal player, a careless one and a random clicker.

Each returns the outputs one `vge-log/1` line holds for a task. Randomness comes only from the `random.Random`
passed in, so the same seed gives the same log (and the same board) on every `make run`.
"""
from __future__ import annotations

import random
from typing import Callable

from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.oracle import optimal_outputs
from scoring.benchmarks.vge.core.task_defs import Task

PHYSICAL = ("Press", "Rotate", "Push", "Pull", "Grasp")


def random_action(rng: random.Random) -> str:
    """One plausible-looking action at a random place, in the paper's grammar, with a line of 'thinking'."""
    name = rng.choice(PHYSICAL + ("Timed_wait",))
    x, y = rng.randint(0, 1000), rng.randint(0, 1000)
    if name == "Timed_wait":
        call = "Timed_wait()"
    elif name == "Press":
        call = f"Press(coord=[{x}, {y}], params=[{rng.choice([0, 0, 0, 1, 2])}])"
    elif name == "Rotate":
        call = f"Rotate(coord=[{x}, {y}], params=[{rng.randint(0, 1)}, {rng.randint(1, 3)}])"
    elif name in ("Push", "Pull"):
        call = f"{name}(coord=[{x}, {y}], params=[{rng.randint(0, 4)}])"
    else:
        call = f"Grasp(coord=[{x}, {y}])"
    return f"Thinking: let me try this part. Action: {call}"


def optimal_agent(engine: Engine, task: Task, rng: random.Random) -> list[str]:
    return optimal_outputs(engine, task) or []


def careless_agent(engine: Engine, task: Task, rng: random.Random, *, slip: float = 0.35) -> list[str]:
    """The optimal plan with a random action slipped in before a step now and then."""
    outputs: list[str] = []
    for step in optimal_outputs(engine, task) or []:
        while rng.random() < slip:
            outputs.append(random_action(rng))
        outputs.append(step)
    return outputs


def random_agent(engine: Engine, task: Task, rng: random.Random, *, turns: int = 25) -> list[str]:
    return [random_action(rng) for _ in range(turns)]


Agent = Callable[[Engine, Task, random.Random], list[str]]

DEMO_AGENTS: dict[str, tuple[str, str, Agent]] = {
    "vge-demo-optimal": ("VGE demo: optimal player", "Plays the shortest action sequence (an upper bound).", optimal_agent),
    "vge-demo-careless": (
        "VGE demo: careless player", "The optimal plan with random actions slipped in now and then.", careless_agent
    ),
    "vge-demo-random": ("VGE demo: random clicker", "25 random actions at random places per episode.", random_agent),
}


def demo_log(agent: Agent, episodes: list[tuple[Engine, Task]], *, seed: int) -> list[dict]:
    """One `vge-log/1` record per task, in order; each task draws from its own seeded generator."""
    records = []
    for engine, task in episodes:
        rng = random.Random(f"{seed}:{task.id}")
        records.append({"task": task.id, "outputs": agent(engine, task, rng)})
    return records
