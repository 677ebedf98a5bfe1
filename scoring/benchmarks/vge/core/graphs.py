"""Distances on a device: the state graph, the product graph, C_opt and L_opt, canonical shortest paths.

State graph: one edge of length 1 per transition (component, timed_wait, immediate), views ignored.
Product graph: nodes (state, view, dashboard unlocked); edges are view switches, timed_wait transitions and
component transitions operable on the view (docs/formats/vge.md, "Distances"). Everything is cached per device.
"""
from __future__ import annotations

from collections import deque
from typing import Iterator

from scoring.benchmarks.vge.core.device import DASHBOARD, IMMEDIATE, TIMED_WAIT, Box, Device, Transition

INF = float("inf")
Node = tuple[str, str, bool]  # (state, view, dashboard unlocked)


def box_contains(box: Box, x: int, y: int) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def box_inside(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def box_area(box: Box) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


def box_distance(box: Box, x: int, y: int) -> float:
    """Euclidean distance from (x, y) to the nearest point of the box (0 inside)."""
    dx = max(box[0] - x, 0, x - box[2])
    dy = max(box[1] - y, 0, y - box[3])
    return float((dx * dx + dy * dy) ** 0.5)


class DeviceGraphs:
    def __init__(self, device: Device):
        self.device = device
        states = device.states
        # Immediate chaining: state -> (state at rest, transitions taken, states entered after it).
        self.chain: dict[str, tuple[str, tuple[Transition, ...], tuple[str, ...]]] = {}
        for name in states:
            taken: list[Transition] = []
            entered: list[str] = []
            current = name
            while states[current].on.get(IMMEDIATE):
                t = states[current].on[IMMEDIATE][0]
                taken.append(t)
                current = t.next_state
                entered.append(current)
            self.chain[name] = (current, tuple(taken), tuple(entered))
        # Canonical order: triggers by name, each trigger's transitions in list order.
        self.out_edges: dict[str, tuple[str, ...]] = {
            name: tuple(t.next_state for trig in sorted(spec.on) for t in spec.on[trig]) for name, spec in states.items()
        }
        self.dist: dict[str, dict[str, int]] = {name: self._bfs(name) for name in states}
        dash = device.dashboard
        self.unlock_view = dash.unlock_view if dash else None
        self.unlock_box = dash.unlock_box if dash else None
        self.orthographic_views = tuple(n for n, v in device.views.items() if v.kind != DASHBOARD)
        # Components with a box per view, smallest first (ties by name): the engine's hit order.
        self.view_boxes: dict[str, tuple[tuple[str, Box], ...]] = {}
        for view in device.views:
            items = [(c.name, c.boxes[view]) for c in device.components.values() if view in c.boxes]
            items.sort(key=lambda item: (box_area(item[1]), item[0]))
            self.view_boxes[view] = tuple(items)
        self._dist_to: dict[str, dict[Node, int]] = {}
        self._succ: dict[Node, tuple[Node, ...]] = {}
        self._l_opt: dict[tuple[Node, tuple[str, ...]], float] = {}
        # The optimal plans asked for, per (node, goal): the error taxonomy and the view switches ask for the same ones
        # on every turn played from a node (a VGE summary: some 15,000 episodes on a few devices).
        self._steps: dict[tuple[Node, str], tuple[tuple[str, str | None, tuple[str, ...]], ...]] = {}
        self._targets: dict[tuple[Node, str], frozenset[str]] = {}

    def _bfs(self, source: str) -> dict[str, int]:
        dist = {source: 0}
        queue = deque([source])
        while queue:
            s = queue.popleft()
            for t in self.out_edges[s]:
                if t not in dist:
                    dist[t] = dist[s] + 1
                    queue.append(t)
        return dist

    def state_distance(self, source: str, target: str) -> float:
        return self.dist[source].get(target, INF)

    def canonical_path(self, source: str, target: str) -> tuple[str, ...] | None:
        """States of the first shortest path found by the canonical BFS (source and target included)."""
        if source == target:
            return (source,)
        parent: dict[str, str] = {source: source}
        queue = deque([source])
        while queue:
            s = queue.popleft()
            for t in self.out_edges[s]:
                if t in parent:
                    continue
                parent[t] = s
                if t == target:
                    path = [t]
                    while path[-1] != source:
                        path.append(parent[path[-1]])
                    return tuple(reversed(path))
                queue.append(t)
        return None

    # -- product graph -------------------------------------------------------------------------------
    def operable(self, component: str, view: str, unlocked: bool) -> bool:
        box = self.device.components[component].boxes.get(view)
        if box is None or self.device.views[view].kind == "axonometric":
            return False
        if not unlocked and view == self.unlock_view and box_inside(box, self.unlock_box):  # type: ignore[arg-type]
            return False
        return True

    def successors(self, node: Node) -> tuple[Node, ...]:
        cached = self._succ.get(node)
        if cached is not None:
            return cached
        state, view, unlocked = node
        out: list[Node] = []
        for other in self.orthographic_views:
            out.append((state, other, unlocked))
        if self.unlock_view is not None:
            if unlocked:
                out.append((state, DASHBOARD, True))
            elif view == self.unlock_view:
                out.append((state, DASHBOARD, True))
        for trigger, transitions in self.device.states[state].on.items():
            if trigger == IMMEDIATE:
                continue
            if trigger != TIMED_WAIT and not self.operable(trigger, view, unlocked):
                continue
            for t in transitions:
                out.append((self.chain[t.next_state][0], view, unlocked))
        result = tuple(dict.fromkeys(n for n in out if n != node))
        self._succ[node] = result
        return result

    def nodes(self) -> Iterator[Node]:
        views = list(self.orthographic_views) + ([DASHBOARD] if self.unlock_view else [])
        for state in self.device.states:
            for view in views:
                for unlocked in (False, True):
                    if view == DASHBOARD and not unlocked:
                        continue
                    yield (state, view, unlocked)

    def distances_to(self, goal: str) -> dict[Node, int]:
        """Product-graph distance from every node to the nearest node whose state is `goal`."""
        cached = self._dist_to.get(goal)
        if cached is not None:
            return cached
        reverse: dict[Node, list[Node]] = {}
        for node in self.nodes():
            for succ in self.successors(node):
                reverse.setdefault(succ, []).append(node)
        dist = {node: 0 for node in self.nodes() if node[0] == goal}
        queue = deque(dist)
        while queue:
            node = queue.popleft()
            for prev in reverse.get(node, ()):
                if prev not in dist:
                    dist[prev] = dist[node] + 1
                    queue.append(prev)
        self._dist_to[goal] = dist
        return dist

    def optimal_steps(self, node: Node, goal: str) -> tuple[tuple[str, str | None, tuple[str, ...]], ...]:
        """The first steps of the shortest product-graph walks from `node` to `goal`, as (trigger, action,
        parameter): a component with its atomic action and parameters, `timed_wait`, or `switch_view`. Empty when
        the node's state is the goal or the goal cannot be reached."""
        cached = self._steps.get((node, goal))
        if cached is None:
            cached = self._steps[(node, goal)] = self._optimal_steps(node, goal)
        return cached

    def _optimal_steps(self, node: Node, goal: str) -> tuple[tuple[str, str | None, tuple[str, ...]], ...]:
        dist = self.distances_to(goal)
        d = dist.get(node)
        if not d:
            return ()
        state, view, unlocked = node
        out: list[tuple[str, str | None, tuple[str, ...]]] = []
        if any(dist.get(n) == d - 1 for n in self.successors(node) if n[0] == state):
            out.append(("switch_view", None, ()))
        for trigger, transitions in self.device.states[state].on.items():
            if trigger == IMMEDIATE or (trigger != TIMED_WAIT and not self.operable(trigger, view, unlocked)):
                continue
            for t in transitions:
                rest = self.chain[t.next_state][0]
                if rest != state and dist.get((rest, view, unlocked)) == d - 1:
                    out.append((trigger, t.action, t.parameter))
        return tuple(dict.fromkeys(out))

    def target_components(self, node: Node, goal: str) -> frozenset[str]:
        """The goal's target components from `node`: the components the optimal plan acts on next, that is the
        first component operated on each shortest product-graph walk to `goal` (view switches and waits before it
        are followed). Empty when no walk operates a component (the goal is reached, unreachable, or by waiting)."""
        cached = self._targets.get((node, goal))
        if cached is None:
            cached = self._targets[(node, goal)] = self._target_components(node, goal)
        return cached

    def _target_components(self, node: Node, goal: str) -> frozenset[str]:
        dist = self.distances_to(goal)
        found: set[str] = set()
        seen = {node}
        frontier = [node]
        while frontier:
            nxt: list[Node] = []
            for cur in frontier:
                d = dist.get(cur)
                if not d:
                    continue
                for trigger, _action, _params in self.optimal_steps(cur, goal):
                    if trigger not in (TIMED_WAIT, "switch_view"):
                        found.add(trigger)
                for succ in self.successors(cur):
                    waited = succ[0] != cur[0] and succ[1:] == cur[1:] and any(
                        t.next_state and self.chain[t.next_state][0] == succ[0]
                        for t in self.device.states[cur[0]].on.get(TIMED_WAIT, ()))
                    if (succ[0] == cur[0] or waited) and dist.get(succ) == d - 1 and succ not in seen:
                        seen.add(succ)
                        nxt.append(succ)
            frontier = nxt
        return frozenset(found)

    def c_opt(self, node: Node, goal: str) -> float:
        return self.distances_to(goal).get(node, INF)

    def l_opt(self, start: Node, goals: tuple[str, ...]) -> float:
        """Fewest turns reaching all goals in order from `start` (BFS over node x goals reached)."""
        key = (start, goals)
        if key in self._l_opt:
            return self._l_opt[key]
        first = (start, 0)
        seen = {first: 0}
        queue = deque([first])
        result = INF
        while queue:
            item = queue.popleft()
            node, k = item
            for succ in self.successors(node):
                nk = k + 1 if succ[0] == goals[k] else k
                if nk == len(goals):
                    result = seen[item] + 1
                    queue.clear()
                    break
                if (succ, nk) not in seen:
                    seen[(succ, nk)] = seen[item] + 1
                    queue.append((succ, nk))
        self._l_opt[key] = result
        return result

