"""The deterministic VGE engine: one episode state, one turn at a time.

`Engine(device)` precomputes the graphs; `new_episode(task)` gives the frozen start `EpisodeState`;
`step(state, output_text)` returns the next state and a `StepOutcome` holding everything a trace needs.
Both are JSON-serialisable (`as_dict` / `from_dict`) so a server can persist each step and resume.
Check order, feedback kinds and texts, budgets and goal rules follow docs/formats/vge.md exactly.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from scoring.benchmarks.vge.core.actions import CANONICAL, Action, parse_action
from scoring.benchmarks.vge.core.device import DASHBOARD, TIMED_WAIT, Device, Transition
from scoring.benchmarks.vge.core.graphs import INF, DeviceGraphs, Node, box_contains
from scoring.benchmarks.vge.core.task_defs import Task, check_task

# Feedback kinds.
INVALID = "invalid"
SUCCESS = "success"
NO_EFFECT = "no_effect"
WRONG_OPERATION = "wrong_operation"
UNLOCKED = "unlocked"
SWITCHED = "switched"

# Turn classes (metrics): a valid physical action, a valid Switch_view, a Timed_wait, an invalid turn.
PHYSICAL = "physical"
SWITCH = "switch"
WAIT = "wait"

TEXT_NULL = "null"
TEXT_WAIT_NO_EFFECT = "Waiting had no effect."
TEXT_WRONG_OPERATION = "It seems that this component can be operated, but not in this way."
TEXT_UNLOCKED = "A close-up dashboard view is now available (Switch_view(params=[dashboard]))."


@dataclass(frozen=True)
class EpisodeState:
    task: str
    state: str  # state at rest
    view: str
    unlocked: bool
    goal_index: int  # index of the current goal (== len(goals) once all are reached)
    global_left: float
    local_left: float
    turns: int
    goal_since: int  # turns taken when the current goal became current
    goal_c_opt: float  # C_opt of the current goal, from the node where it became current
    l_opt: float
    done: bool = False
    success: bool = False

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("goal_c_opt", "l_opt"):
            if data[key] == INF:
                data[key] = None  # JSON has no infinity
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EpisodeState":
        data = dict(data)
        for key in ("goal_c_opt", "l_opt"):
            if data.get(key) is None:
                data[key] = INF
        return cls(**data)


@dataclass(frozen=True)
class StepOutcome:
    turn: int  # 1-based
    raw_output: str
    action: Action | None
    turn_class: str  # physical / switch / wait / invalid
    kind: str  # invalid / success / no_effect / wrong_operation / unlocked / switched
    feedback: str
    state_before: str
    state_after: str
    view_before: str
    view_after: str
    unlocked_before: bool
    unlocked_after: bool
    entered: tuple[str, ...]  # states entered this turn, transient immediates included, in order
    goal_index_before: int
    goal_reached: str | None
    goal_turns: int  # turns the reached goal took since it became current (0 when none reached)
    goal_c_opt: float  # C_opt of the reached goal (0 when none reached)
    component: str | None  # the component that reacted (success / wrong_operation)
    global_left: float
    local_left: float
    done: bool
    success: bool

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["action"] = self.action.as_dict() if self.action else None
        data["action_text"] = self.action.text() if self.action else None
        data["entered"] = list(self.entered)
        for key in ("goal_c_opt", "global_left", "local_left"):
            if data[key] == INF:
                data[key] = None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StepOutcome":
        data = dict(data)
        data.pop("action_text", None)
        data["action"] = Action.from_dict(data["action"]) if data.get("action") else None
        data["entered"] = tuple(data["entered"])
        for key in ("goal_c_opt", "global_left", "local_left"):
            if data[key] is None:
                data[key] = INF
        return cls(**data)


def _budget(lam: float, distance: float) -> float:
    value = lam * distance
    return int(value) if float(value).is_integer() else value


class Engine:
    """Plays tasks on one device. Cheap `step`; all graph work is done once and cached."""

    def __init__(self, device: Device):
        self.device = device
        self.graphs = DeviceGraphs(device)
        self._tasks: dict[str, Task] = {}
        dash = device.dashboard
        self.unlock_view = dash.unlock_view if dash else None
        self.unlock_box = dash.unlock_box if dash else None
        self._views_lower = {name.lower(): name for name in device.views}

    # -- tasks ---------------------------------------------------------------------------------------
    def add_task(self, task: Task) -> None:
        check_task(task, self.device, self.graphs)
        self._tasks[task.id] = task

    def has_task(self, task_id: str) -> bool:
        return task_id in self._tasks

    def task(self, task_id: str) -> Task:
        return self._tasks[task_id]

    def new_episode(self, task: Task) -> EpisodeState:
        if task.id not in self._tasks:
            self.add_task(task)
        start = self.graphs.chain[task.start_state][0]
        node = (start, task.start_view, False)
        l_opt = self.graphs.l_opt(node, task.goals)
        c_opt = self.graphs.c_opt(node, task.goals[0])
        return EpisodeState(
            task=task.id,
            state=start,
            view=task.start_view,
            unlocked=False,
            goal_index=0,
            global_left=_budget(task.lam, l_opt),
            local_left=_budget(task.lam, c_opt),
            turns=0,
            goal_since=0,
            goal_c_opt=c_opt,
            l_opt=l_opt,
        )

    def start_entered(self, task: Task) -> tuple[str, ...]:
        """The start state and its immediate chain: the states an episode has entered before its first turn."""
        return (task.start_state,) + self.graphs.chain[task.start_state][2]

    # -- observation ---------------------------------------------------------------------------------
    def accessible_views(self, state: EpisodeState) -> list[str]:
        return [n for n in self.device.views if n != DASHBOARD or state.unlocked]

    def instruction(self, state: EpisodeState) -> str | None:
        task = self._tasks[state.task]
        return task.instructions[state.goal_index] if state.goal_index < len(task.goals) else None

    def current_goal(self, state: EpisodeState) -> str | None:
        task = self._tasks[state.task]
        return task.goals[state.goal_index] if state.goal_index < len(task.goals) else None

    # -- the turn ------------------------------------------------------------------------------------
    def _move(self, transition: Transition) -> tuple[str, tuple[str, ...], str]:
        """Take a transition and chain immediates: (state at rest, states entered, feedback text)."""
        rest, taken, entered = self.graphs.chain[transition.next_state]
        texts = [transition.description] + [t.description for t in taken] + [self.device.states[rest].description]
        return rest, (transition.next_state,) + entered, " ".join(t.strip() for t in texts if t and t.strip())

    def _invalid(self, message: str) -> tuple[str, str]:
        return INVALID, f"Invalid action: {message}"

    def step(self, state: EpisodeState, output: str) -> tuple[EpisodeState, StepOutcome]:
        if state.done:
            raise ValueError(f"episode of task {state.task} is already over")
        task = self._tasks.get(state.task)
        if task is None:
            raise ValueError(f"task {state.task} is not known to this engine; call engine.add_task(task) first")
        parsed = parse_action(output)
        action = parsed.action
        new_state, view, unlocked = state.state, state.view, state.unlocked
        entered: tuple[str, ...] = ()
        component: str | None = None
        turn_class = INVALID

        if action is None:
            kind, feedback = self._invalid(parsed.error)
        else:
            kind, feedback = "", ""
            name = action.name
            label = CANONICAL[name]
            coord = action.coord
            # 1. validity
            if action.physical:
                if coord is None:
                    kind, feedback = self._invalid(f"{label} needs coord=[x, y]")
                elif not (0 <= coord[0] <= 1000 and 0 <= coord[1] <= 1000):
                    kind, feedback = self._invalid(f"coord {list(coord)} is outside 0..1000")
                elif self.device.views[view].kind == "axonometric":
                    kind, feedback = self._invalid(
                        f"{label} cannot be used on the axonometric view '{view}'; switch to another view first"
                    )
            elif name == "switch_view":
                if action.params:
                    target = self._views_lower.get(action.params[0].lower())
                    if target is None:
                        kind, feedback = self._invalid(f"there is no view '{action.params[0]}'")
                    elif target == DASHBOARD and not unlocked:
                        kind, feedback = self._invalid("the dashboard view is still locked")
                elif coord is None:
                    kind, feedback = self._invalid("Switch_view needs params=[view] or coord=[x, y]")
                elif not (0 <= coord[0] <= 1000 and 0 <= coord[1] <= 1000):
                    kind, feedback = self._invalid(f"coord {list(coord)} is outside 0..1000")
            if not kind:
                if name == "switch_view":
                    # 2. view switch
                    turn_class = SWITCH
                    if action.params:
                        view = self._views_lower[action.params[0].lower()]
                        kind, feedback = SWITCHED, f"You are now looking at the {view} view."
                    elif (
                        self.unlock_view == view
                        and box_contains(self.unlock_box, *coord)  # type: ignore[arg-type, misc]
                    ):
                        view, unlocked = DASHBOARD, True
                        kind, feedback = SWITCHED, "You are now looking at the dashboard view."
                    else:
                        kind, feedback = NO_EFFECT, TEXT_NULL
                elif name == "timed_wait":
                    # 3. waiting
                    turn_class = WAIT
                    waits = self.device.states[new_state].on.get(TIMED_WAIT)
                    if waits:
                        new_state, entered, feedback = self._move(waits[0])
                        kind = SUCCESS
                    else:
                        kind, feedback = NO_EFFECT, TEXT_WAIT_NO_EFFECT
                else:
                    # 4. physical action
                    turn_class = PHYSICAL
                    x, y = coord  # type: ignore[misc]
                    if not unlocked and view == self.unlock_view and box_contains(self.unlock_box, x, y):  # type: ignore[arg-type]
                        unlocked = True
                        kind, feedback = UNLOCKED, TEXT_UNLOCKED
                    else:
                        on = self.device.states[new_state].on
                        hit = next(
                            (c for c, box in self.graphs.view_boxes[view] if on.get(c) and box_contains(box, x, y)), None
                        )
                        if hit is None:
                            kind, feedback = NO_EFFECT, TEXT_NULL
                        else:
                            component = hit
                            match = next((t for t in on[hit] if _matches(t, action)), None)
                            if match is None:
                                kind, feedback = WRONG_OPERATION, TEXT_WRONG_OPERATION
                            else:
                                new_state, entered, feedback = self._move(match)
                                kind = SUCCESS

        # Budgets, goal check, end check.
        turns = state.turns + 1
        global_left = state.global_left - 1
        local_left = state.local_left - 1
        goal_index, goal_since, goal_c_opt = state.goal_index, state.goal_since, state.goal_c_opt
        goal_reached: str | None = None
        goal_turns = 0
        reached_c_opt: float = 0
        if new_state == task.goals[goal_index]:
            goal_reached = new_state
            goal_turns = turns - goal_since
            reached_c_opt = goal_c_opt
            goal_index += 1
            goal_since = turns
            if goal_index < len(task.goals):
                goal_c_opt = self.graphs.c_opt((new_state, view, unlocked), task.goals[goal_index])
                next_budget = _budget(task.lam, goal_c_opt) if goal_c_opt != INF else 0
                local_left = max(local_left, next_budget)
            else:
                goal_c_opt = 0
        success = goal_index == len(task.goals)
        done = success or global_left <= 0 or local_left <= 0
        if goal_reached:
            feedback += " (Goal reached.)" if not success else " (All goals reached.)"
        nxt = replace(
            state,
            state=new_state,
            view=view,
            unlocked=unlocked,
            goal_index=goal_index,
            global_left=global_left,
            local_left=local_left,
            turns=turns,
            goal_since=goal_since,
            goal_c_opt=goal_c_opt,
            done=done,
            success=success,
        )
        outcome = StepOutcome(
            turn=turns,
            raw_output=output if isinstance(output, str) else str(output),
            action=action,
            turn_class=turn_class,
            kind=kind,
            feedback=feedback,
            state_before=state.state,
            state_after=new_state,
            view_before=state.view,
            view_after=view,
            unlocked_before=state.unlocked,
            unlocked_after=unlocked,
            entered=entered,
            goal_index_before=state.goal_index,
            goal_reached=goal_reached,
            goal_turns=goal_turns,
            goal_c_opt=reached_c_opt,
            component=component,
            global_left=global_left,
            local_left=local_left,
            done=done,
            success=success,
        )
        return nxt, outcome


def _matches(transition: Transition, action: Action) -> bool:
    if transition.action != action.name:
        return False
    wanted = transition.parameter
    if not wanted:
        return True
    if len(wanted) != len(action.params):
        return False
    return all(w == "*" or w == p for w, p in zip(wanted, action.params))


def finite(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isinf(value)) else value
