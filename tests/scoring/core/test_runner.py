"""The runner's driver against the stand-in model over a real socket: retries of 429s and timeouts, answers
stored once and never asked again, the key in no error text."""
from __future__ import annotations

from scoring.benchmarks.plan.core.run import PROTOCOL
from scoring.core.chat_client import OpenAIChatClient
from scoring.core.contract import SampleRecord
from scoring.core.runner import Context, MemoryStore, run_units, units
from scoring.standin import StandInModel

RECORDS = [SampleRecord(key=f"q{i}", position=i, inputs={"question": f"How many cups? ({i})", "type": "single_choice",
                                                         "options": {"A": "1", "B": "2"}, "images": []})
           for i in range(6)]


def play(server: StandInModel, store: MemoryStore, **client):
    model = OpenAIChatClient(base_url=server.base_url, model="m", api_key="sk-top-secret", backoff=0.01,
                             who="the model", **client)
    todo = units(RECORDS, 1)
    with model:
        return run_units(PROTOCOL, todo, lambda u: Context(model=model, store=store, options={}, params={}),
                         concurrency=3)


def test_429s_are_retried_and_each_sample_answered_once() -> None:
    with StandInModel(fail_first=4) as server:
        lines, progress = play(server, MemoryStore())
    assert progress.done == 6 and server.requests == 10 and server.answered == 6 and server.repeated() == 0
    assert {line["prediction"] for line in lines.values()} <= {"A", "B"}


def test_timeouts_are_retried() -> None:
    with StandInModel(fail_first=2, fail_with="timeout", fail_delay=1.0) as server:
        lines, progress = play(server, MemoryStore(), timeout=0.3)
    assert progress.done == 6 and server.answered == 6


def test_a_stored_answer_is_never_asked_again() -> None:
    store = MemoryStore()
    with StandInModel() as server:
        play(server, store)
        lines, progress = play(server, store)
    assert server.answered == 6 and progress.asked == 0 and len(lines) == 6


def test_giving_up_leaves_the_unit_unanswered_and_never_names_the_key() -> None:
    with StandInModel(fail_first=1000) as server:
        lines, progress = play(server, MemoryStore(), max_retries=1)
    assert lines == {} and progress.failed == 6
    assert all("429" in e and "sk-top-secret" not in e for e in progress.errors)
