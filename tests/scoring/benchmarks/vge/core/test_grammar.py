"""The agent protocol's one table (core/grammar.py) against everything that plays or documents it: the parser, the
engine's check 1, the play page's input check, the device schema's action list, the demo library's transitions and
the shared format file's action table (issue 30: "the action grammar with each action's params spelled out (Rotate
`[dir, detents]`, Pull `[4]` = out, Switch_view)")."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scoring.benchmarks.vge.core import grammar
from scoring.benchmarks.vge.core.actions import ACTION_NAMES, CANONICAL, PHYSICAL, parse_action
from scoring.benchmarks.vge.core.device import PHYSICAL_ACTIONS, load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.play import PlayInputError, action_text
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

ROOT = Path(__file__).resolve().parents[5]
SHARED_FORMAT = ROOT.parent / "shared" / "docs" / "formats" / "vge.md"
DEVICE_SCHEMA = ROOT / "scoring" / "benchmarks" / "vge" / "core" / "schemas" / "vge-device-1.schema.json"


def test_the_table_has_the_papers_seven_actions_and_the_parser_reads_its_names():
    assert ACTION_NAMES == ("press", "rotate", "push", "pull", "grasp", "timed_wait", "switch_view")
    assert CANONICAL == {spec.name: spec.label for spec in grammar.ACTIONS}
    assert PHYSICAL == {"press", "rotate", "push", "pull", "grasp"} == set(PHYSICAL_ACTIONS)


def test_the_spelled_out_params_of_the_issue():
    rotate, pull, switch = grammar.BY_NAME["rotate"], grammar.BY_NAME["pull"], grammar.BY_NAME["switch_view"]
    assert rotate.signature() == "Rotate(coord=[x, y], params=[direction, detents])"
    assert dict(rotate.params[0].choices) == {0: "clockwise", 1: "counter-clockwise"}
    assert dict(pull.params[0].choices)[4] == "out" and dict(grammar.BY_NAME["push"].params[0].choices)[4] == "in"
    assert switch.coord == grammar.OPTIONAL and switch.params[0].view
    assert dict(grammar.BY_NAME["press"].params[0].choices) == {0: "click", 1: "long press", 2: "double click"}


@pytest.mark.parametrize("spec", grammar.ACTIONS, ids=lambda s: s.name)
def test_each_example_parses_to_its_action_and_reads_back_the_same(spec):
    action = parse_action(f"Thinking: ... Action: {spec.example}").action
    assert action is not None and action.name == spec.name and action.text() == spec.example
    assert len(action.params) in (0, len(spec.params))


@pytest.mark.parametrize("spec", grammar.ACTIONS, ids=lambda s: s.name)
def test_the_engine_asks_for_a_coord_exactly_where_the_table_says(spec):
    engine = Engine(load_device(TINY))
    task = make_task()
    state = engine.new_episode(task)
    params = ", ".join("front" if p.view else str((p.allowed() or [0])[0]) for p in spec.params)
    text = f"{spec.label}(params=[{params}])" if params else f"{spec.label}()"
    _, outcome = engine.step(state, text)
    needs = "needs coord" in outcome.feedback
    assert needs == (spec.coord == grammar.REQUIRED), outcome.feedback
    if spec.coord != grammar.REQUIRED:
        assert outcome.kind != "invalid"


@pytest.mark.parametrize("spec", [s for s in grammar.ACTIONS if s.coord == grammar.REQUIRED], ids=lambda s: s.name)
def test_the_play_page_takes_exactly_the_tables_values(spec):
    def message(values):
        return {"action": spec.label, "coord": [10, 10], "params": values}

    first = [p.allowed()[0] for p in spec.params]
    assert action_text(message(first)).startswith(f"{spec.label}(coord=[10, 10]")
    for position, param in enumerate(spec.params):
        allowed = param.allowed()
        for value in allowed:
            action_text(message([value if i == position else v for i, v in enumerate(first)]))
        beyond = max(allowed) + 1
        with pytest.raises(PlayInputError) as refused:
            action_text(message([beyond if i == position else v for i, v in enumerate(first)]))
        assert refused.value.field == f"params[{position}]"


def test_the_device_schema_lists_the_tables_physical_actions():
    text = DEVICE_SCHEMA.read_text()
    enums = {tuple(e) for e in re.findall(r'"atomic_action": \{\s*"enum": (\[[^\]]*\])', text) for e in [json.loads(e)]}
    assert enums == {tuple(PHYSICAL_ACTIONS)}


def test_every_transition_of_the_demo_library_takes_params_the_table_allows():
    devices, _ = build_library(seed=7, variants=1, tasks_per_device=1)
    seen = set()
    for device in devices:
        for state in device["states"].values():
            for trigger, items in state["on"].items():
                for item in items:
                    name = item.get("atomic_action")
                    if name is None:
                        continue
                    spec = grammar.BY_NAME[name]
                    given = [str(p) for p in item.get("parameter") or []]
                    if not given:
                        continue
                    assert len(given) == len(spec.params), (device["id"], trigger, given)
                    for param, value in zip(spec.params, given):
                        assert value == "*" or int(value) in param.allowed(), (device["id"], trigger, given)
                    seen.add(name)
    assert seen >= {"press", "rotate", "push", "pull"}


def test_the_shared_format_files_action_table_says_what_the_table_says():
    if not SHARED_FORMAT.exists():
        pytest.skip(f"no shared format file at {SHARED_FORMAT}")
    rows = {}
    for line in SHARED_FORMAT.read_text().splitlines():
        found = re.match(r"\| `(\w+)` \| (\w+) \| (.*) \|$", line)
        if found:
            rows[found.group(1)] = (found.group(2), found.group(3))
    assert set(rows) == {spec.label for spec in grammar.ACTIONS}
    for spec in grammar.ACTIONS:
        coord, params = rows[spec.label]
        assert coord == spec.coord, spec.label
        for param in spec.params:
            for value, meaning in param.choices:
                assert re.search(rf"\b{value}\b[^,|]*{re.escape(meaning)}", params), (spec.label, value, meaning)
        if not spec.params:
            assert params == "none"


def test_the_grammar_as_markdown_and_text_names_every_action_param_and_kind():
    for text in (grammar.grammar_markdown(), grammar.grammar_text()):
        for spec in grammar.ACTIONS:
            assert spec.signature() in text and spec.example in text
            for param in spec.params:
                assert f"{param.name}: {param.values_text()}" in text
        for kind in grammar.KIND_NAMES:
            assert kind in text
