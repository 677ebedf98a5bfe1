"""The judge client against a real local HTTP server (no mocks): retries, timeouts, malformed replies, concurrency."""
from __future__ import annotations

import time

from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer, Reply
from scoring.benchmarks.plan.core.protocol import open_messages

MESSAGES = open_messages(answer="3", hint=None, output="3 mugs")


def client(server: LocalJudgeServer, **kwargs) -> OpenAIJudgeClient:
    defaults = dict(base_url=server.base_url, model="judge-x", api_key="k", timeout=2.0, backoff=0.01, max_retries=3)
    defaults.update(kwargs)
    return OpenAIJudgeClient(**defaults)


def test_request_is_a_temperature_zero_chat_completion() -> None:
    with LocalJudgeServer() as server, client(server) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content == "True" and reply.attempts == 1
    sent = server.requests[0]
    assert sent["model"] == "judge-x" and sent["temperature"] == 0 and sent["messages"][1]["role"] == "user"


def test_429_and_500_are_retried_until_an_answer_comes() -> None:

    def script(n, _):
        return Reply(status=429, headers={"retry-after": "0"}) if n == 1 else Reply(status=503) if n == 2 else None

    with LocalJudgeServer(script=script) as server, client(server) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content == "True" and reply.attempts == 3 and len(server.requests) == 3


def test_persistent_429_gives_up_with_an_error_not_a_verdict() -> None:
    with LocalJudgeServer(script=lambda n, _: Reply(status=429)) as server, client(server, max_retries=2) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content is None and "429" in reply.error and len(server.requests) == 3


def test_timeout_is_retried_then_reported() -> None:
    with LocalJudgeServer(script=lambda n, _: Reply(delay=0.6)) as server, client(server, timeout=0.2, max_retries=1) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content is None and "timed out" in reply.error and reply.attempts == 2


def test_client_error_is_not_retried() -> None:
    with LocalJudgeServer(script=lambda n, _: Reply(status=401)) as server, client(server) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content is None and "401" in reply.error and len(server.requests) == 1


def test_malformed_body_is_an_error() -> None:
    with LocalJudgeServer(script=lambda n, _: Reply(body=b"<html>oops</html>")) as server, client(server) as judge:
        reply = judge.complete(MESSAGES)
    assert reply.content is None and "not a chat completion" in reply.error


def test_unreachable_judge_is_an_error() -> None:
    with LocalJudgeServer() as server:
        url = server.base_url
    judge = OpenAIJudgeClient(base_url=url, model="m", timeout=0.5, backoff=0.01, max_retries=1)
    reply = judge.complete(MESSAGES)
    judge.close()
    assert reply.content is None and "could not reach" in reply.error


def test_many_requests_run_with_at_least_eight_in_flight() -> None:
    with LocalJudgeServer(delay=0.2) as server, client(server, max_in_flight=16) as judge:
        start = time.monotonic()
        replies = judge.complete_many([MESSAGES] * 32)
        wall = time.monotonic() - start
    assert all(r.content == "True" for r in replies)
    assert server.peak_in_flight >= 8 and judge.peak_in_flight >= 8
    assert wall < 32 * 0.2 / 4  # far faster than one at a time
