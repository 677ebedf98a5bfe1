"""An optimal player: the action texts of a shortest product-graph walk through a task's goals.

Used to check that every generated task can be solved in exactly L_opt turns (SPL 100) and to make demo
logs. Component actions aim at a point of the box where the engine would pick that component.
"""
from __future__ import annotations

from collections import deque

from scoring.benchmarks.vge.core.device import DASHBOARD, IMMEDIATE, TIMED_WAIT, Transition
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.graphs import Node, box_contains
from scoring.benchmarks.vge.core.task_defs import Task


def _aim(engine: Engine, component: str, state: str, view: str, unlocked: bool) -> tuple[int, int] | None:
    """A point in the component's box where it wins the hit test (and no passive unlock fires)."""
    box = engine.device.components[component].boxes[view]
    on = engine.device.states[state].on
    steps = 8
    for i in range(steps + 1):
        for j in range(steps + 1):
            x = box[0] + (box[2] - box[0]) * (0.5 + (i - steps / 2) / steps * 0.98)
            y = box[1] + (box[3] - box[1]) * (0.5 + (j - steps / 2) / steps * 0.98)
            p = (int(round(x)), int(round(y)))
            if not unlocked and view == engine.unlock_view and box_contains(engine.unlock_box, *p):  # type: ignore[arg-type]
                continue
            hit = next((c for c, b in engine.graphs.view_boxes[view] if on.get(c) and box_contains(b, *p)), None)
            if hit == component:
                return p
    return None


def _action_text(t: Transition, point: tuple[int, int]) -> str:
    params = [("0" if p == "*" else p) for p in t.parameter] or ["0"]
    name = (t.action or "press").capitalize()
    return f"Action: {name}(coord=[{point[0]}, {point[1]}], params=[{', '.join(params)}])"


def _moves(engine: Engine, node: Node) -> list[tuple[str, Node]]:
    state, view, unlocked = node
    g = engine.graphs
    out: list[tuple[str, Node]] = []
    for other in g.orthographic_views:
        if other != view:
            out.append((f"Action: Switch_view(params=[{other}])", (state, other, unlocked)))
    if engine.unlock_view is not None and view != DASHBOARD:
        if unlocked:
            out.append(("Action: Switch_view(params=[dashboard])", (state, DASHBOARD, True)))
        elif view == engine.unlock_view:
            b = engine.unlock_box
            out.append((f"Action: Switch_view(coord=[{(b[0] + b[2]) // 2}, {(b[1] + b[3]) // 2}])", (state, DASHBOARD, True)))  # type: ignore[index]
    for trigger, transitions in engine.device.states[state].on.items():
        if trigger == IMMEDIATE:
            continue
        if trigger == TIMED_WAIT:
            out.append(("Action: Timed_wait()", (g.chain[transitions[0].next_state][0], view, unlocked)))
            continue
        if not g.operable(trigger, view, unlocked):
            continue
        point = _aim(engine, trigger, state, view, unlocked)
        if point is None:
            continue
        # only the first transition matching a given action text is taken by the engine
        seen: set[str] = set()
        for t in transitions:
            text = _action_text(t, point)
            if text not in seen:
                seen.add(text)
                out.append((text, (g.chain[t.next_state][0], view, unlocked)))
    return out


def optimal_outputs(engine: Engine, task: Task) -> list[str] | None:
    """Action texts reaching all goals in order in the fewest turns, or None if the engine cannot."""
    start = (engine.graphs.chain[task.start_state][0], task.start_view, False)
    first = (start, 0)
    parent: dict[tuple[Node, int], tuple[tuple[Node, int], str] | None] = {first: None}
    queue = deque([first])
    while queue:
        item = queue.popleft()
        node, k = item
        for text, nxt in _moves(engine, node):
            nk = k + 1 if nxt[0] == task.goals[k] else k
            key = (nxt, nk)
            if key in parent:
                continue
            parent[key] = (item, text)
            if nk == len(task.goals):
                texts = []
                cur: tuple[Node, int] | None = key
                while parent[cur] is not None:  # type: ignore[index]
                    prev, t = parent[cur]  # type: ignore[misc, index]
                    texts.append(t)
                    cur = prev
                return list(reversed(texts))
            queue.append(key)
    return None
