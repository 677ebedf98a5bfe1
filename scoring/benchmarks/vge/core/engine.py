"""The deterministic VGE engine: one episode state, one turn at a time.

`Engine(device)` precomputes the graphs; `new_episode(task)` gives the frozen start `EpisodeState`;
`step(state, output_text)` returns the next state and a `StepOutcome` holding everything a trace needs.
Both are JSON-serialisable (`as_dict` / `from_dict`) so a server can persist each step and resume.
Check order, feedback kinds and texts, budgets and goal rules follow docs/formats/vge.md exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any, Callable, NamedTuple

from scoring.benchmarks.vge.core.actions import CANONICAL, Action, ParseResult, parse_action
from scoring.benchmarks.vge.core.device import DASHBOARD, TIMED_WAIT, Device, Transition
from scoring.benchmarks.vge.core.grammar import (
    COORD_RANGE,
    INVALID,
    NEEDS_COORD,
    NO_EFFECT,
    NULL_TEXT,
    SUCCESS,
    SWITCHED,
    UNLOCKED,
    WRONG_OPERATION,
)
from scoring.benchmarks.vge.core.graphs import INF, DeviceGraphs, box_contains
from scoring.benchmarks.vge.core.task_defs import Task, check_task
from scoring.core.numbers import finite

# Feedback kinds: the grammar table's (grammar.FEEDBACK_KINDS), named here too for the engine's readers.

# Turn classes (metrics): a valid physical action, a valid Switch_view, a Timed_wait, an invalid turn.
PHYSICAL = "physical"
SWITCH = "switch"
WAIT = "wait"

TEXT_NULL = NULL_TEXT  # the paper's literal, stored as is; shown as a sentence (grammar.feedback_text)
TEXT_WAIT_NO_EFFECT = "Waiting had no effect."
TEXT_WRONG_OPERATION = "It seems that this component can be operated, but not in this way."
TEXT_UNLOCKED = "A close-up dashboard view is now available (Switch_view(params=[dashboard]))."


_FIELD_READERS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple]]] = {}


def _fields_dict(instance: Any) -> dict[str, Any]:
    """A dataclass's fields by name, not copied: dataclasses.asdict deep-copies every value, which cost a served step
    more than the engine's step (perf/agent_step_profile.py). The names and their reader are found once per class:
    dataclasses.fields() on every call cost more than the reading."""
    found = _FIELD_READERS.get(type(instance))
    if found is None:
        names = tuple(f.name for f in fields(instance))
        found = _FIELD_READERS[type(instance)] = (names, attrgetter(*names))
    names, read = found
    return dict(zip(names, read(instance)))


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
    lam: float | None = None  # the episode's interaction budget λ when it is not the task's own (None: the task's)

    def as_dict(self) -> dict[str, Any]:
        data = _fields_dict(self)  # every field a plain value: no copy needed
        for key in ("goal_c_opt", "l_opt"):
            data[key] = finite(data[key])  # an unreachable goal's infinite cost: JSON has no infinity
        if data["lam"] is None:
            del data["lam"]  # played with the task's own λ: the state reads as it did before the option existed
        return data

    def played_lam(self, task: Task) -> float:
        """The interaction budget λ this episode is played with."""
        return task.lam if self.lam is None else self.lam

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
        data = _fields_dict(self)  # plain values but `action` and `entered`, both replaced below
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


class _Effect(NamedTuple):
    """What a turn's action did, before budgets and goals: its class, feedback, and where the episode now is."""

    turn_class: str
    kind: str
    feedback: str
    state: str
    view: str
    unlocked: bool
    entered: tuple[str, ...] = ()
    component: str | None = None


class _GoalReached(NamedTuple):
    """The goal reached on a turn, how many turns it took since it became current, and its C_opt."""

    goal: str
    turns: int
    c_opt: float


def _stay(at: EpisodeState, turn_class: str, kind: str, feedback: str, component: str | None = None) -> _Effect:
    """An effect that leaves the state, the view and the dashboard lock as they were."""
    return _Effect(turn_class, kind, feedback, at.state, at.view, at.unlocked, (), component)


def _invalid_text(reason: str) -> str:
    return f"Invalid action: {reason}"


def _on_image(coord: tuple[int, int]) -> bool:
    low, high = COORD_RANGE
    return low <= coord[0] <= high and low <= coord[1] <= high


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

    def new_episode(self, task: Task, *, lam: float | None = None) -> EpisodeState:
        """The start of an episode of the task, its budgets λ·L_opt and λ·C_opt with the task's λ, or with `lam`
        when given (an episode played at another interaction budget, the paper's Fig. 3)."""
        if task.id not in self._tasks:
            self.add_task(task)
        start = self.graphs.chain[task.start_state][0]
        node = (start, task.start_view, False)
        l_opt = self.graphs.l_opt(node, task.goals)
        c_opt = self.graphs.c_opt(node, task.goals[0])
        played = task.lam if lam is None else lam
        return EpisodeState(
            task=task.id,
            state=start,
            view=task.start_view,
            unlocked=False,
            goal_index=0,
            global_left=_budget(played, l_opt),
            local_left=_budget(played, c_opt),
            turns=0,
            goal_since=0,
            goal_c_opt=c_opt,
            l_opt=l_opt,
            lam=None if lam is None or lam == task.lam else lam,
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

    # -- the turn ------------------------------------------------------------------------------------
    def _move(self, transition: Transition) -> tuple[str, tuple[str, ...], str]:
        """Take a transition and chain immediates: (state at rest, states entered, feedback text)."""
        rest, taken, entered = self.graphs.chain[transition.next_state]
        texts = [transition.description] + [t.description for t in taken] + [self.device.states[rest].description]
        return rest, (transition.next_state,) + entered, " ".join(t.strip() for t in texts if t and t.strip())

    def step(self, state: EpisodeState, output: str) -> tuple[EpisodeState, StepOutcome]:
        """One agent turn: act on the device, then spend the budgets and check the goal and the end."""
        task = self._task_in_play(state)
        parsed = parse_action(output)
        effect = self._act(state, parsed)
        nxt, reached = self._advance(state, task, effect)
        return nxt, self._outcome(state, nxt, output, parsed.action, effect, reached)

    def _task_in_play(self, state: EpisodeState) -> Task:
        if state.done:
            raise ValueError(f"episode of task {state.task} is already over")
        task = self._tasks.get(state.task)
        if task is None:
            raise ValueError(f"task {state.task} is not known to this engine; call engine.add_task(task) first")
        return task

    # 1. validity, then 2-4. the action itself (the check order of docs/formats/vge.md) ---------------------
    def _act(self, state: EpisodeState, parsed: ParseResult) -> _Effect:
        action = parsed.action
        if action is None:
            return _stay(state, INVALID, INVALID, _invalid_text(parsed.error))
        problem = self._invalid_reason(state, action)
        if problem is not None:
            return _stay(state, INVALID, INVALID, _invalid_text(problem))
        if action.name == "switch_view":
            return self._switch_view(state, action)
        if action.name == "timed_wait":
            return self._timed_wait(state)
        return self._physical(state, action)

    def _invalid_reason(self, state: EpisodeState, action: Action) -> str | None:
        """Why the action cannot be played from here (None when it can): the engine's check 1."""
        label = CANONICAL[action.name]
        coord = action.coord
        if action.name in NEEDS_COORD:  # the grammar table says which actions need a coord
            if coord is None:
                return f"{label} needs coord=[x, y]"
            if not _on_image(coord):
                return f"coord {list(coord)} is outside {COORD_RANGE[0]}..{COORD_RANGE[1]}"
        if action.physical:
            if self.device.views[state.view].kind == "axonometric":
                return f"{label} cannot be used on the axonometric view '{state.view}'; switch to another view first"
        elif action.name == "switch_view":
            if action.params:
                target = self._views_lower.get(action.params[0].lower())
                if target is None:
                    return f"there is no view '{action.params[0]}'"
                if target == DASHBOARD and not state.unlocked:
                    return "the dashboard view is still locked"
            elif coord is None:
                return "Switch_view needs params=[view] or coord=[x, y]"
            elif not _on_image(coord):
                return f"coord {list(coord)} is outside {COORD_RANGE[0]}..{COORD_RANGE[1]}"
        return None

    def _switch_view(self, state: EpisodeState, action: Action) -> _Effect:
        if action.params:
            view = self._views_lower[action.params[0].lower()]
            feedback = f"You are now looking at the {view} view."
            return _Effect(SWITCH, SWITCHED, feedback, state.state, view, state.unlocked)
        x, y = action.coord  # type: ignore[misc]
        if self.unlock_view == state.view and box_contains(self.unlock_box, x, y):  # type: ignore[arg-type]
            return _Effect(SWITCH, SWITCHED, "You are now looking at the dashboard view.", state.state, DASHBOARD, True)
        return _stay(state, SWITCH, NO_EFFECT, TEXT_NULL)

    def _timed_wait(self, state: EpisodeState) -> _Effect:
        waits = self.device.states[state.state].on.get(TIMED_WAIT)
        if waits:
            return self._moved(state, WAIT, waits[0])
        return _stay(state, WAIT, NO_EFFECT, TEXT_WAIT_NO_EFFECT)

    def _physical(self, state: EpisodeState, action: Action) -> _Effect:
        x, y = action.coord  # type: ignore[misc]
        view = state.view
        unlock_box = self.unlock_box
        if not state.unlocked and view == self.unlock_view and box_contains(unlock_box, x, y):  # type: ignore[arg-type]
            # A passive unlock: the action is aborted and the dashboard opens; the view stays.
            return _Effect(PHYSICAL, UNLOCKED, TEXT_UNLOCKED, state.state, view, True)
        on = self.device.states[state.state].on
        # view_boxes is sorted smallest box first, so the first reactive hit is the one the rules pick.
        hit = next((c for c, box in self.graphs.view_boxes[view] if on.get(c) and box_contains(box, x, y)), None)
        if hit is None:
            return _stay(state, PHYSICAL, NO_EFFECT, TEXT_NULL)
        match = next((t for t in on[hit] if _matches(t, action)), None)
        if match is None:
            return _stay(state, PHYSICAL, WRONG_OPERATION, TEXT_WRONG_OPERATION, component=hit)
        return self._moved(state, PHYSICAL, match, component=hit)

    def _moved(
        self, state: EpisodeState, turn_class: str, transition: Transition, component: str | None = None
    ) -> _Effect:
        rest, entered, feedback = self._move(transition)
        return _Effect(turn_class, SUCCESS, feedback, rest, state.view, state.unlocked, entered, component)

    # after the action: budgets, goal check, end check ----------------------------------------------------
    def _advance(self, state: EpisodeState, task: Task, effect: _Effect) -> tuple[EpisodeState, _GoalReached | None]:
        """The episode after the action. Every turn costs 1 from both budgets; at most one goal is reached per
        turn, which may raise the local budget to the next goal's; all goals reached is success even on the
        turn a budget runs out."""
        turns = state.turns + 1
        global_left = state.global_left - 1
        local_left = state.local_left - 1
        goal_index, goal_since, goal_c_opt = state.goal_index, state.goal_since, state.goal_c_opt
        reached: _GoalReached | None = None
        if effect.state == task.goals[goal_index]:
            reached = _GoalReached(effect.state, turns - goal_since, goal_c_opt)
            goal_index += 1
            goal_since = turns
            if goal_index < len(task.goals):
                goal_c_opt = self.graphs.c_opt((effect.state, effect.view, effect.unlocked), task.goals[goal_index])
                next_budget = _budget(state.played_lam(task), goal_c_opt) if goal_c_opt != INF else 0
                local_left = max(local_left, next_budget)
            else:
                goal_c_opt = 0
        success = goal_index == len(task.goals)
        nxt = replace(
            state,
            state=effect.state,
            view=effect.view,
            unlocked=effect.unlocked,
            goal_index=goal_index,
            global_left=global_left,
            local_left=local_left,
            turns=turns,
            goal_since=goal_since,
            goal_c_opt=goal_c_opt,
            done=success or global_left <= 0 or local_left <= 0,
            success=success,
        )
        return nxt, reached

    def _outcome(
        self,
        before: EpisodeState,
        after: EpisodeState,
        output: str,
        action: Action | None,
        effect: _Effect,
        reached: _GoalReached | None,
    ) -> StepOutcome:
        goal_reached = reached.goal if reached else None
        feedback = effect.feedback
        if goal_reached:
            feedback += " (Goal reached.)" if not after.success else " (All goals reached.)"
        return StepOutcome(
            turn=after.turns,
            raw_output=output if isinstance(output, str) else str(output),
            action=action,
            turn_class=effect.turn_class,
            kind=effect.kind,
            feedback=feedback,
            state_before=before.state,
            state_after=effect.state,
            view_before=before.view,
            view_after=effect.view,
            unlocked_before=before.unlocked,
            unlocked_after=effect.unlocked,
            entered=effect.entered,
            goal_index_before=before.goal_index,
            goal_reached=goal_reached,
            goal_turns=reached.turns if reached else 0,
            goal_c_opt=reached.c_opt if reached else 0,
            component=effect.component,
            global_left=after.global_left,
            local_left=after.local_left,
            done=after.done,
            success=after.success,
        )


def _matches(transition: Transition, action: Action) -> bool:
    if transition.action != action.name:
        return False
    wanted = transition.parameter
    if not wanted:
        return True
    if len(wanted) != len(action.params):
        return False
    return all(w == "*" or w == p for w, p in zip(wanted, action.params))
