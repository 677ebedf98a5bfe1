from __future__ import annotations

from scoring.benchmarks.plan.core.engine import MemoryCache, judge_submission
from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer, Reply
from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION
from scoring.benchmarks.plan.core.types import DecidedBy, Prediction, Verdict

from .conftest import choice_item, open_item


def _judge(server: LocalJudgeServer, **kw) -> OpenAIJudgeClient:
    return OpenAIJudgeClient(base_url=server.base_url, model="judge-x", timeout=1.0, backoff=0.01, max_retries=1, **kw)


def test_rule_judge_alone_decides_certain_items_and_leaves_the_rest_undecided() -> None:
    items = [open_item("3"), open_item("mug", item_id="sr-1", subtask="SR"), choice_item("B")]
    preds = [Prediction("pc-1", "three"), Prediction("sr-1", "a ceramic cup"), Prediction("oo-1", "B")]
    outcomes = judge_submission(items, preds)
    assert [o.verdict.correct for o in outcomes] == [True, None, True]
    assert outcomes[0].verdict.decided_by is DecidedBy.RULE and outcomes[2].verdict.extracted == "B"


def test_missing_prediction_is_wrong_by_rule() -> None:
    outcome = judge_submission([open_item("3")], [])[0]
    assert outcome.verdict.correct is False and outcome.prediction is None


def test_unresolved_single_choice_is_wrong_without_a_judge_and_mapped_with_one() -> None:
    item, pred = choice_item("B"), Prediction("oo-1", "I would go with option B or maybe A")
    assert judge_submission([item], [pred])[0].verdict.correct is False
    with LocalJudgeServer(script=lambda n, _: Reply(content="B")) as server, _judge(server) as judge:
        verdict = judge_submission([item], [pred], judge=judge)[0].verdict
    assert verdict.correct is True and verdict.decided_by is DecidedBy.MODEL and verdict.extracted == "B"


def test_llm_verdicts_are_cached_so_a_rescore_never_calls_twice() -> None:
    items = [open_item("mug", item_id=f"sr-{i}", subtask="SR") for i in range(5)]
    preds = [Prediction(f"sr-{i}", "a ceramic mug") for i in range(5)]
    cache = MemoryCache()
    with LocalJudgeServer() as server, _judge(server) as judge:
        first = judge_submission(items, preds, judge=judge, cache=cache)
        calls = len(server.requests)
        second = judge_submission(items, preds, judge=judge, cache=cache)
        assert len(server.requests) == calls == 5
    assert [o.verdict for o in first] == [o.verdict for o in second]
    assert all(o.verdict.correct is True and o.verdict.prompt_version == PROMPT_VERSION for o in second)
    assert first[0].verdict.raw_output == "True" and first[0].verdict.judge == "judge-x"


def test_identical_outputs_for_the_same_item_are_asked_once() -> None:
    item = open_item("mug", item_id="sr-1", subtask="SR")
    with LocalJudgeServer() as server, _judge(server) as judge:
        judge_submission([item], [Prediction("sr-1", "a  ceramic mug ")], judge=judge, cache=MemoryCache())
        judge_submission([item], [Prediction("sr-1", "a ceramic mug")], judge=judge)
    assert len(server.requests) == 2  # once per submission without a shared cache, never per duplicate


def test_judge_outage_leaves_items_undecided_never_wrong() -> None:
    items = [open_item("mug", item_id="sr-1", subtask="SR"), open_item("cup", item_id="sr-2", subtask="SR")]
    preds = [Prediction("sr-1", "a ceramic mug"), Prediction("sr-2", "some cup thing")]

    def script(n, _):
        return Reply(status=500) if n <= 2 else Reply(content="Perhaps")

    cache = MemoryCache()
    with LocalJudgeServer(script=script) as server, _judge(server, max_in_flight=1) as judge:
        outcomes = judge_submission(items, preds, judge=judge, cache=cache)
    assert [o.verdict.correct for o in outcomes] == [None, None]
    assert "500" in outcomes[0].verdict.note and "malformed" in outcomes[1].verdict.note
    assert outcomes[1].verdict.raw_output == "Perhaps"
    assert cache.verdicts == {}  # nothing undecided is cached: the next score asks again


def test_a_persons_cached_verdict_wins_over_the_model() -> None:
    item, pred = open_item("mug", item_id="sr-1", subtask="SR"), Prediction("sr-1", "a ceramic cup")
    cache = MemoryCache()
    first = judge_submission([item], [pred], cache=cache)[0]
    cache.verdicts[(item.fingerprint, first.output_hash, "alice", "person")] = Verdict(
        True, DecidedBy.PERSON, judge="alice", prompt_version="person"
    )
    with LocalJudgeServer(script=lambda n, _: Reply(content="False")) as server, _judge(server) as judge:
        outcome = judge_submission([item], [pred], judge=judge, cache=cache)[0]
        assert server.requests == []
    assert outcome.verdict.correct is True and outcome.verdict.decided_by is DecidedBy.PERSON


def test_thinking_traces_are_removed_before_extraction_and_the_verdict_says_so() -> None:
    trace = "<think>" + "Option A looks right at first. " * 200 + "</think>\n"
    items = [choice_item("B"), open_item("3"), choice_item("B", item_id="oo-2"), choice_item("B", item_id="oo-3")]
    preds = [Prediction("oo-1", trace + "Final answer: B"), Prediction("pc-1", trace + "**Final Answer:** three"),
             Prediction("oo-2", "<think>B, surely B ... the output was cut off"), Prediction("oo-3", "B")]
    outcomes = judge_submission(items, preds)
    choice, open_, cut, plain = outcomes
    assert choice.verdict.correct is True and choice.verdict.extracted == "B"
    assert "<think>…</think> removed" in choice.verdict.note and "Final answer" in choice.reasoning
    assert choice.prediction.startswith("<think>") and choice.answer == "B"  # the output is kept as it came
    assert open_.verdict.correct is True and open_.answer == "three"
    assert cut.verdict.correct is False and "never closed" in cut.verdict.note
    assert plain.reasoning == "" and plain.answer is None and "removed" not in plain.verdict.note
    # Without the shared reader the long trace defeated extraction: the letter A is everywhere in it.
    raw = judge_submission([choice_item("B")], [Prediction("oo-1", trace.replace("<think>", "").replace("</think>", "") + "B?")])
    assert raw[0].verdict.correct is False


def test_verdicts_on_the_answer_part_are_shared_across_different_traces() -> None:
    item = open_item("mug", item_id="sr-1", subtask="SR")
    cache = MemoryCache()
    with LocalJudgeServer() as server, _judge(server) as judge:
        judge_submission([item], [Prediction("sr-1", "<think>hmm, a cup?</think>a ceramic mug")], judge=judge, cache=cache)
        again = judge_submission([item], [Prediction("sr-1", "<think>other words</think> a ceramic mug")],
                                 judge=judge, cache=cache)
        assert len(server.requests) == 1
        sent = server.requests[0]
    assert "hmm" not in str(sent) and again[0].verdict.correct is True


def test_the_sample_details_record_what_was_removed_and_owners_of_hidden_splits_see_it() -> None:
    from scoring.benchmarks.plan.plugin import HIDDEN_SPLIT_DETAIL_KEYS
    from scoring.benchmarks.plan.scorer import sample_result

    outcome = judge_submission([choice_item("B")], [Prediction("oo-1", "<think>...</think>Final answer: B")])[0]
    details = sample_result(outcome).details
    assert details["reasoning_stripped"] == '<think>…</think> removed; read after "Final answer:"'
    assert details["output"].startswith("<think>")
    assert "reasoning_stripped" in HIDDEN_SPLIT_DETAIL_KEYS
    assert "reasoning_stripped" not in sample_result(judge_submission([choice_item("B")], [Prediction("oo-1", "B")])[0]).details
