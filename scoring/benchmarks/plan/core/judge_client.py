"""Adapter to any OpenAI-compatible chat-completions endpoint, used as the LLM judge.

Temperature 0; up to `max_in_flight` requests at once (threads sharing one httpx connection pool); retries with
exponential backoff on 429, 5xx, timeouts and connection errors (honouring Retry-After); a reply that is not a
chat completion is reported as an error. Errors never raise: the caller leaves such items undecided.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import httpx

Messages = Sequence[Mapping[str, str]]


@dataclass(frozen=True)
class JudgeReply:
    content: str | None  # the assistant message; None when the call failed
    error: str = ""
    attempts: int = 0


class OpenAIJudgeClient:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 60.0,
        max_in_flight: int = 16,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ):
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.name = model
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.max_in_flight = max_in_flight
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=max_in_flight, max_keepalive_connections=max_in_flight),
            transport=transport,
        )
        self._lock = threading.Lock()
        self._in_flight = 0
        self.peak_in_flight = 0  # the most requests seen open at once (benchmarks print it)
        self.calls = 0  # HTTP requests sent, retries included

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "OpenAIJudgeClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete_many(self, conversations: Sequence[Messages]) -> list[JudgeReply]:
        """Replies in the order of `conversations`, with at most `max_in_flight` requests open at once."""
        if not conversations:
            return []
        workers = min(self.max_in_flight, len(conversations))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="plan-judge") as pool:
            return list(pool.map(self.complete, conversations))

    def _post(self, messages: Messages) -> httpx.Response:
        with self._lock:
            self._in_flight += 1
            self.calls += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            return self._http.post(
                self.url, json={"model": self.model, "messages": [dict(m) for m in messages], "temperature": 0}
            )
        finally:
            with self._lock:
                self._in_flight -= 1

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            retry_after = response.headers.get("retry-after", "")
            try:
                return min(self.max_backoff, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return float(min(self.max_backoff, self.backoff * (2**attempt)))

    def complete(self, messages: Messages) -> JudgeReply:
        error = ""
        for attempt in range(self.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response = self._post(messages)
            except httpx.TimeoutException:
                error = "the judge timed out"
            except httpx.TransportError as exc:
                error = f"could not reach the judge ({type(exc).__name__}: {exc})"
            else:
                if response.status_code == 429 or response.status_code >= 500:
                    error = f"the judge answered HTTP {response.status_code}"
                elif response.status_code >= 400:
                    # A client error (bad key, unknown model) does not improve by asking again.
                    return JudgeReply(None, f"the judge answered HTTP {response.status_code}: {response.text[:300]}", attempt + 1)
                else:
                    return self._content(response, attempt + 1)
            if attempt < self.max_retries:
                self.sleep(self._delay(attempt, response))
        return JudgeReply(None, f"{error} (gave up after {self.max_retries + 1} attempts)", self.max_retries + 1)

    @staticmethod
    def _content(response: httpx.Response, attempts: int) -> JudgeReply:
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return JudgeReply(None, f"the judge's reply is not a chat completion: {response.text[:300]!r}", attempts)
        if not isinstance(content, str):
            return JudgeReply(None, f"the judge's reply has no text content: {response.text[:300]!r}", attempts)
        return JudgeReply(content, "", attempts)
