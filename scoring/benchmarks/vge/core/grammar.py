"""The agent protocol as data: the seven actions with their coord and params, and the feedback kinds a turn answers.

ONE table (`ACTIONS`, `FEEDBACK_KINDS`) that the parser (`actions.py`: the names), the engine (`engine.py`: which
actions need a coord, the kinds), the play page's input check (`play.py`: each param's allowed values) and every
place that documents the protocol read: the agent API's schema (`simulator/serializers.py`, `/api/docs/`), the VGE
format page (`scoring/benchmarks/vge/plugin.py`) and docs/vge-engine.md. Tests hold the shared format file
(docs/formats/vge.md) and the engine to it, so the documentation cannot drift from what the engine does.

The spec (docs/formats/vge.md, "Actions"): `Name(coord=[x, y], params=[...])`; coordinates 0..1000 of the view
image, origin top-left; params are compared as strings after normalisation. The engine does not refuse params
outside these values (docs/vge-engine.md, decision 5: `Press(params=[7])` is a valid turn that matches no
transition); the values below are what devices' transitions use and what a player's page offers.
"""
from __future__ import annotations

from dataclasses import dataclass

# Whether an action takes a coord.
REQUIRED = "required"
OPTIONAL = "optional"
NONE = "none"

COORD_RANGE = (0, 1000)  # both axes, integers after rounding half up; origin top-left, x right, y down


@dataclass(frozen=True)
class Param:
    """One position of an action's params: its name, what it means, and the values it takes: named choices
    (`choices`: value -> meaning), a whole number in `minimum..maximum`, or a view's name (`view`)."""

    name: str
    meaning: str
    choices: tuple[tuple[int, str], ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    view: bool = False

    def values_text(self) -> str:
        if self.choices:
            return ", ".join(f"{value} {meaning}" for value, meaning in self.choices)
        if self.view:
            return "a view's name (one of the observation's accessible_views)"
        return f"a whole number {self.minimum}..{self.maximum}"

    def allowed(self) -> tuple[int, ...] | range | None:
        """The whole numbers this position takes (None: a view name)."""
        if self.choices:
            return tuple(value for value, _ in self.choices)
        if self.minimum is not None and self.maximum is not None:
            return range(self.minimum, self.maximum + 1)
        return None


@dataclass(frozen=True)
class ActionSpec:
    name: str  # lower case, as the parser and the device's atomic_action name it
    label: str  # as written in the grammar
    coord: str  # REQUIRED / OPTIONAL / NONE
    params: tuple[Param, ...]
    physical: bool  # acts on a component (never on an axonometric view)
    meaning: str
    example: str

    def signature(self) -> str:
        """`Rotate(coord=[x, y], params=[direction, detents])`."""
        parts = []
        if self.coord != NONE:
            parts.append("coord=[x, y]")
        if self.params:
            parts.append("params=[" + ", ".join(p.name for p in self.params) + "]")
        return f"{self.label}({', '.join(parts)})"


MAX_DETENTS = 12  # the most detents a Rotate turns in one action (the largest a library dial has is well below)
_DIRECTION_PUSH = ((0, "up"), (1, "down"), (2, "left"), (3, "right"), (4, "in"))
_DIRECTION_PULL = ((0, "up"), (1, "down"), (2, "left"), (3, "right"), (4, "out"))

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("press", "Press", REQUIRED,
               (Param("mode", "how it is pressed", choices=((0, "click"), (1, "long press"), (2, "double click"))),),
               True, "press a button, key or switch at the point", "Press(coord=[512, 300], params=[0])"),
    ActionSpec("rotate", "Rotate", REQUIRED,
               (Param("direction", "which way it turns", choices=((0, "clockwise"), (1, "counter-clockwise"))),
                Param("detents", "how far: the number of clicks (detents) it turns", minimum=1,
                      maximum=MAX_DETENTS)),
               True, "turn a dial, knob or key at the point", "Rotate(coord=[640, 410], params=[0, 2])"),
    ActionSpec("push", "Push", REQUIRED,
               (Param("direction", "which way it is pushed", choices=_DIRECTION_PUSH),),
               True, "push a slider, lever, door or tray at the point", "Push(coord=[300, 700], params=[4])"),
    ActionSpec("pull", "Pull", REQUIRED,
               (Param("direction", "which way it is pulled", choices=_DIRECTION_PULL),),
               True, "pull a handle, drawer, lever or tray at the point", "Pull(coord=[300, 700], params=[4])"),
    ActionSpec("grasp", "Grasp", REQUIRED, (),
               True, "grasp (pick up, take hold of) the component at the point", "Grasp(coord=[420, 515])"),
    ActionSpec("timed_wait", "Timed_wait", NONE, (),
               False, "wait for the device (a timer, heating, a cycle) to move on by itself", "Timed_wait()"),
    ActionSpec("switch_view", "Switch_view", OPTIONAL,
               (Param("view", "the view to look at", view=True),),
               False, "look at the device from another view: by name (params=[view]); or, without params, a coord "
                      "inside the dashboard's spot on the current view opens the close-up dashboard view",
               "Switch_view(params=[left])"),
)

BY_NAME: dict[str, ActionSpec] = {spec.name: spec for spec in ACTIONS}
ACTION_NAMES: tuple[str, ...] = tuple(spec.name for spec in ACTIONS)
CANONICAL: dict[str, str] = {spec.name: spec.label for spec in ACTIONS}
PHYSICAL: frozenset[str] = frozenset(spec.name for spec in ACTIONS if spec.physical)
NEEDS_COORD: frozenset[str] = frozenset(spec.name for spec in ACTIONS if spec.coord == REQUIRED)


# -- feedback kinds -----------------------------------------------------------------------------------------------
INVALID = "invalid"
SUCCESS = "success"
NO_EFFECT = "no_effect"
WRONG_OPERATION = "wrong_operation"
UNLOCKED = "unlocked"
SWITCHED = "switched"

FEEDBACK_KINDS: tuple[tuple[str, str], ...] = (
    (SUCCESS, "the action moved the device on (or Timed_wait let it move): the text says what happened and how "
              "the device is now"),
    (WRONG_OPERATION, "the point hit a component that can be operated now, but not with this action or params"),
    (NO_EFFECT, "nothing happened: no operable component at the point, a Switch_view coord outside the dashboard's "
                "spot, or nothing to wait for"),
    (UNLOCKED, "the point was on the dashboard's spot: the action was aborted and the close-up dashboard view is "
               "now available (Switch_view(params=[dashboard]))"),
    (SWITCHED, "the view changed"),
    (INVALID, "no action could be read, or it cannot be played here (coord missing or outside 0..1000, a physical "
              "action on an axonometric view, an unknown or locked view): the text says why; the turn still costs "
              "one from each budget"),
)
KIND_NAMES: tuple[str, ...] = tuple(kind for kind, _ in FEEDBACK_KINDS)

# The engine's text for "no effect" is the paper's literal "null" (kept in every stored step and trace); what an agent
# or a player is shown instead is this sentence (`feedback_shown`).
NULL_TEXT = "null"
NOTHING_HAPPENED = "Nothing happened."


def feedback_text(text: str | None) -> str | None:
    """The feedback text a player or agent is shown for the engine's: a sentence, or None when the device says
    nothing (the paper's "null" becomes "Nothing happened.", an empty text is left out)."""
    if text is None:
        return None
    text = text.strip()
    if text == NULL_TEXT:
        return NOTHING_HAPPENED
    return text or None


# -- the grammar as text and tables, for every page that documents it ------------------------------------------------

def coord_text(spec: ActionSpec) -> str:
    return {REQUIRED: "required", OPTIONAL: "optional (the dashboard's spot)", NONE: "none"}[spec.coord]


def params_text(spec: ActionSpec) -> str:
    if not spec.params:
        return "none"
    return "; ".join(f"{p.name}: {p.values_text()}" for p in spec.params)


def grammar_rows() -> tuple[tuple[str, str, str, str, str], ...]:
    """(signature, coord, params, meaning, example) per action, in the table's order."""
    return tuple((spec.signature(), coord_text(spec), params_text(spec), spec.meaning, spec.example)
                 for spec in ACTIONS)


GRAMMAR_INTRO = (
    "Write the action as `Name(coord=[x, y], params=[...])`, free text around it allowed: the action is the last "
    "call of the seven names on the last line containing `Action:` (any case), else the last call anywhere. "
    "Coordinates are whole numbers 0..1000 on the current view's image (origin top-left, x right, y down; "
    "rounded half up); params are compared as text, so 0, 0.0 and \"0\" are the same. A `<think>` block is not "
    "read. Every turn costs 1 from both budgets, whatever happens.")


def grammar_text() -> str:
    """The grammar as plain text: the intro, then one line per action and one per feedback kind."""
    lines = [GRAMMAR_INTRO, "", "Actions:"]
    for signature, coord, params, meaning, example in grammar_rows():
        lines.append(f"- {signature}: {meaning}. coord: {coord}; params: {params}. Example: {example}")
    lines += ["", "Feedback kinds:"]
    lines += [f"- {kind}: {meaning}" for kind, meaning in FEEDBACK_KINDS]
    return "\n".join(lines)


def grammar_markdown() -> str:
    """The grammar as Markdown (the API docs' description): a table of the actions and one of the feedback kinds."""
    lines = [GRAMMAR_INTRO, "", "| action | coord | params | what it does | example |", "|---|---|---|---|---|"]
    for signature, coord, params, meaning, example in grammar_rows():
        lines.append(f"| `{signature}` | {coord} | {params} | {meaning} | `{example}` |")
    lines += ["", "| feedback kind | meaning |", "|---|---|"]
    lines += [f"| `{kind}` | {meaning} |" for kind, meaning in FEEDBACK_KINDS]
    return "\n".join(lines)
