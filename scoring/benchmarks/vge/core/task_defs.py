"""Tasks (`vge-task/1`): loading, checking against a device, and generation from loop-free paths.

A task starts at `start_state` (after its immediate chain) on `start_view` with the dashboard locked and
lists goals reached in order. Generated tasks follow loop-free state-graph paths from the initial state;
their instructions are verbalised from transition descriptions by seeded templates.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from scoring.benchmarks.vge.core.device import DASHBOARD, IMMEDIATE, Device, Problem, Transition
from scoring.benchmarks.vge.core.graphs import INF, DeviceGraphs
from scoring.benchmarks.vge.core.mentions import disambiguated

FORMAT = "vge-task/1"
DEFAULT_LAMBDA = 5
# An episode may be played at another interaction budget than its task's (the paper's Fig. 3): λ a whole number in
# this range (ours, because the budget figure's axis is λ = 1..10), named by this option on an episode and on a
# submission of bundled episodes.
LAMBDA_MIN, LAMBDA_MAX = 1, 10
LAMBDA_OPTION = "lambda"


def episode_lambda(value: Any) -> int:
    """An episode's interaction budget λ from an option's value (a whole number, or its text); ValueError saying
    what is wrong otherwise."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"λ must be a whole number from {LAMBDA_MIN} to {LAMBDA_MAX}, not {value!r}")
    if not LAMBDA_MIN <= value <= LAMBDA_MAX:
        raise ValueError(f"λ must be from {LAMBDA_MIN} to {LAMBDA_MAX}, not {value}")
    return value


class TaskInvalid(ValueError):
    def __init__(self, problems: list[Problem], task_id: str = ""):
        self.problems = problems
        self.task_id = task_id
        prefix = f"task {task_id}: " if task_id else ""
        super().__init__(prefix + "; ".join(str(p) for p in problems))


@dataclass(frozen=True)
class Task:
    id: str
    device: str
    start_state: str
    start_view: str
    goals: tuple[str, ...]
    instructions: tuple[str, ...]
    lam: float = DEFAULT_LAMBDA

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "device": self.device,
            "start_state": self.start_state,
            "start_view": self.start_view,
            "goals": list(self.goals),
            "instructions": list(self.instructions),
            "lambda": self.lam,
        }


def load_task(data: Any) -> Task:
    """A task from its JSON mapping; raises `TaskInvalid` naming each bad field."""
    if not isinstance(data, Mapping):
        raise TaskInvalid([Problem("", "a task must be a JSON object")])
    problems: list[Problem] = []
    for key in ("id", "device", "start_state", "start_view"):
        if not isinstance(data.get(key), str) or not data.get(key):
            problems.append(Problem(key, "must be a non-empty string"))
    goals = data.get("goals")
    if not isinstance(goals, list) or not goals or not all(isinstance(g, str) for g in goals):
        problems.append(Problem("goals", "must be a non-empty list of state names"))
        goals = []
    instructions = data.get("instructions")
    if not isinstance(instructions, list) or not all(isinstance(i, str) for i in instructions):
        problems.append(Problem("instructions", "must be a list of strings"))
        instructions = []
    elif goals and len(instructions) != len(goals):
        problems.append(Problem("instructions", f"has {len(instructions)} items for {len(goals)} goals"))
    lam = data.get("lambda", DEFAULT_LAMBDA)
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not lam > 0:
        problems.append(Problem("lambda", "must be a positive number"))
        lam = DEFAULT_LAMBDA
    for i in range(1, len(goals)):
        if goals[i] == goals[i - 1]:
            problems.append(Problem(f"goals[{i}]", "repeats the previous goal"))
    if problems:
        raise TaskInvalid(problems, str(data.get("id", "")))
    return Task(
        id=data["id"],
        device=data["device"],
        start_state=data["start_state"],
        start_view=data["start_view"],
        goals=tuple(goals),
        instructions=tuple(instructions),
        lam=lam,
    )


def check_task(task: Task, device: Device, graphs: DeviceGraphs) -> None:
    """Raise `TaskInvalid` when the task cannot be played on the device."""
    problems: list[Problem] = []
    if task.device != device.id:
        problems.append(Problem("device", f"is '{task.device}', not '{device.id}'"))
    if task.start_state not in device.states:
        problems.append(Problem("start_state", f"unknown state '{task.start_state}'"))
    if task.start_view not in device.views or task.start_view == DASHBOARD:
        problems.append(Problem("start_view", f"unknown or locked view '{task.start_view}'"))
    for i, goal in enumerate(task.goals):
        if goal not in device.states:
            problems.append(Problem(f"goals[{i}]", f"unknown state '{goal}'"))
        elif graphs.chain[goal][0] != goal:
            problems.append(Problem(f"goals[{i}]", f"'{goal}' is left at once by its immediate transition"))
    if not problems:
        start = graphs.chain[task.start_state][0]
        if task.goals[0] == start:
            problems.append(Problem("goals[0]", "the task starts in its first goal"))
        elif graphs.l_opt((start, task.start_view, False), task.goals) == INF:
            problems.append(Problem("goals", "the goals cannot all be reached in order from the start"))
    if problems:
        raise TaskInvalid(problems, task.id)


TEMPLATES_FIRST = (
    "Operate the device until this happens: {d}",
    "Make the device respond like this: {d}",
    "Use the device so that the following happens: {d}",
)
TEMPLATES_NEXT = (
    "Next, operate it until this happens: {d}",
    "Then make it respond like this: {d}",
    "After that, get this to happen: {d}",
)


def _paths(device: Device, graphs: DeviceGraphs, start: str, max_len: int, limit: int) -> list[list[Transition]]:
    """Loop-free state-graph paths from `start` (as transition lists), canonical order, at most `limit`."""
    out: list[list[Transition]] = []
    stack: list[tuple[str, list[Transition], frozenset[str]]] = [(start, [], frozenset([start]))]
    while stack and len(out) < limit:
        state, path, seen = stack.pop()
        if path:
            out.append(path)
        if len(path) >= max_len:
            continue
        children = []
        for trigger in sorted(device.states[state].on):
            for t in device.states[state].on[trigger]:
                if t.next_state not in seen:
                    children.append((t.next_state, path + [t], seen | {t.next_state}))
        stack.extend(reversed(children))
    return out


def _describe(path: list[Transition], end: int) -> str:
    """The text of the transition that lands on path[end] (skipping back over immediates)."""
    i = end
    while i > 0 and path[i].trigger == IMMEDIATE and not path[i].description:
        i -= 1
    text = path[i].description.strip() or "the device changes its state."
    return text


def _named(device: Device, path: list[Transition], end: int) -> str:
    """The goal's text with every component it mentions named unambiguously (issue 32: "Press the round red
    button" on a panel with two red buttons): a mention that fits several components and the one this goal's
    transition acts on is reworded to fit that one alone (core/mentions.py)."""
    text = _describe(path, end)
    actor = next((t.trigger for t in reversed(path[:end + 1]) if t.trigger in device.components), None)
    return disambiguated(text, device, actor) if actor else text


def generate_tasks(device: Device, *, seed: int, count: int = 4, lam: float = DEFAULT_LAMBDA,
                   start_view: str = "front", max_goals: int = 3) -> list[Task]:
    """Deterministic tasks for a device: single-goal and multi-goal ones along loop-free paths."""
    rng = random.Random(seed)
    graphs = DeviceGraphs(device)
    if start_view not in device.views:
        start_view = next(n for n, v in device.views.items() if v.kind != DASHBOARD)
    start = graphs.chain[device.initial_state][0]
    paths = _paths(device, graphs, start, max_len=8, limit=4000)
    rest = {s for s in device.states if graphs.chain[s][0] == s}

    def goal_points(path: list[Transition]) -> list[int]:
        return [i for i, t in enumerate(path) if t.next_state in rest and t.next_state != start]

    candidates: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    seen: set[tuple[str, ...]] = set()
    for path in paths:
        points = goal_points(path)
        if not points:
            continue
        # single goal: the path's end; multi goal: a seeded choice of 2..max_goals points, in order
        options = [[points[-1]]]
        if len(points) >= 2:
            k = min(len(points), rng.randint(2, max_goals))
            options.append(sorted(rng.sample(points, k)))
        for chosen in options:
            goals = tuple(path[i].next_state for i in chosen)
            if goals in seen or any(a == b for a, b in zip(goals, goals[1:])):
                continue
            seen.add(goals)
            texts = tuple(
                (TEMPLATES_FIRST if n == 0 else TEMPLATES_NEXT)[rng.randrange(3)].format(d=_named(device, path, i))
                for n, i in enumerate(chosen)
            )
            candidates.append((goals, texts))
    singles = [c for c in candidates if len(c[0]) == 1]
    multis = [c for c in candidates if len(c[0]) > 1]
    rng.shuffle(singles)
    rng.shuffle(multis)
    # Prefer longer single goals (more interesting), then alternate single / multi.
    singles.sort(key=lambda c: -graphs.state_distance(start, c[0][0]))
    picked: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    while len(picked) < count and (singles or multis):
        source = singles if (len(picked) % 2 == 0 and singles) or not multis else multis
        goals, texts = source.pop(0)
        if graphs.l_opt((start, start_view, False), goals) == INF:
            continue
        picked.append((goals, texts))
    return [
        Task(f"{device.id}/t{n + 1}", device.id, device.initial_state, start_view, goals, texts, lam)
        for n, (goals, texts) in enumerate(picked)
    ]
