import random

from scoring.benchmarks.vge.core.actions import parse_action
from scoring.benchmarks.vge.core.demo_agents import careless_agent, demo_log, optimal_agent, random_action, random_agent
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.library import build_library


def _episodes(n: int = 6):
    devices, tasks = build_library(seed=7, variants=2)
    engines = {d["id"]: Engine(load_device(d)) for d in devices}
    return [(engines[t.device], t) for t in tasks[:n]]


def test_random_actions_parse_as_valid_actions():
    rng = random.Random(1)
    for _ in range(200):
        assert parse_action(random_action(rng)).action is not None


def test_demo_logs_are_deterministic_per_seed():
    episodes = _episodes()
    assert demo_log(random_agent, episodes, seed=3) == demo_log(random_agent, episodes, seed=3)
    assert demo_log(random_agent, episodes, seed=3) != demo_log(random_agent, episodes, seed=4)


def test_careless_agent_contains_the_optimal_plan_in_order():
    for engine, task in _episodes():
        plan = optimal_agent(engine, task, random.Random(0))
        careless = careless_agent(engine, task, random.Random(0), slip=0.5)
        assert plan, task.id
        position = 0
        for step in careless:
            if position < len(plan) and step == plan[position]:
                position += 1
        assert position == len(plan)
        assert len(careless) >= len(plan)
