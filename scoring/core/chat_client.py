"""The one adapter to OpenAI-compatible chat-completions endpoints: the PLAN judge asks it for verdicts, the hub's
runner (scoring.core.runner) asks it for a model's answers.

Up to `max_in_flight` requests at once (threads sharing one httpx connection pool); retries with exponential
backoff on 429, 5xx, timeouts and connection errors (honouring Retry-After); a reply that is not a chat completion
is reported as an error; a reply body over `max_reply_bytes` is refused unread past the bound. Errors never raise:
the caller decides (the judge leaves items undecided, the runner records the failure). The API key goes in the
Authorization header only: it is in no error text, no repr and no log line of this module. Given an `address`, it
connects there (checked by its caller) and never resolves the URL's host. Pure (httpx, no Django).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import httpx

from scoring.core.pinning import pinned

Messages = Sequence[Mapping[str, Any]]  # {"role", "content"}: content is text, or a list of OpenAI content parts
MAX_REPLY_BYTES = 1024 * 1024  # a chat completion larger than this is refused (answers are size-bounded)


@dataclass(frozen=True)
class ChatReply:
    content: str | None  # the assistant message; None when the call failed
    error: str = ""
    attempts: int = 0
    # What the endpoint reported of the tokens used ({"prompt_tokens", "completion_tokens", "total_tokens"}), or {}
    usage: Mapping[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # wall time of the call, retries and their waits included


class OpenAIChatClient:
    """`who` names the endpoint in error texts ("the judge", "the model")."""

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
        who: str = "the endpoint",
        params: Mapping[str, Any] | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        gate: Callable[[], AbstractContextManager[Any]] | None = None,
        address: str = "",
    ):
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.name = model
        self.model = model
        self.who = who
        self.url = base_url.rstrip("/") + "/chat/completions"
        # `address`: the IP address to connect to, checked by the caller (evaluations.endpoints.endpoint_address).
        self._target = pinned(self.url, address)
        self.max_in_flight = max_in_flight
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep
        self.params = dict(params if params is not None else {"temperature": 0})
        self.max_reply_bytes = max_reply_bytes
        # Entered around each HTTP request, retries each on their own: the hub's endpoint slot and rate limit, shared
        # by every run on the endpoint (evaluations.limits); a retry's backoff holds no slot.
        self.gate = gate
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

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChatClient(url={self.url!r}, model={self.model!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "OpenAIChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete_many(self, conversations: Sequence[Messages]) -> list[ChatReply]:
        """Replies in the order of `conversations`, with at most `max_in_flight` requests open at once."""
        if not conversations:
            return []
        workers = min(self.max_in_flight, len(conversations))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chat-client") as pool:
            return list(pool.map(self.complete, conversations))

    def _post(self, messages: Messages, params: Mapping[str, Any]) -> tuple[httpx.Response, bytes]:
        with self.gate() if self.gate is not None else nullcontext():
            return self._post_open(messages, params)

    def _post_open(self, messages: Messages, params: Mapping[str, Any]) -> tuple[httpx.Response, bytes]:
        with self._lock:
            self._in_flight += 1
            self.calls += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            body = {"model": self.model, "messages": [dict(m) for m in messages], **self.params, **params}
            with self._http.stream("POST", self._target.url, json=body, headers=self._target.headers,
                                   extensions=self._target.extensions) as response:
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > self.max_reply_bytes:
                        break
                return response, bytes(data)
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

    def complete(self, messages: Messages, **params: Any) -> ChatReply:
        """One chat completion; `params` (max_tokens, ...) are added to the request body."""
        started = time.monotonic()
        reply = self._complete(messages, params)
        return ChatReply(reply.content, reply.error, reply.attempts, reply.usage, time.monotonic() - started)

    def _complete(self, messages: Messages, params: Mapping[str, Any]) -> ChatReply:
        error = ""
        for attempt in range(self.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response, body = self._post(messages, params)
            except httpx.TimeoutException:
                error = f"{self.who} timed out"
            except httpx.TransportError as exc:
                error = f"could not reach {self.who} ({type(exc).__name__})"
            else:
                if response.status_code == 429 or response.status_code >= 500:
                    error = f"{self.who} answered HTTP {response.status_code}"
                elif response.status_code >= 400:
                    # A client error (bad key, unknown model) does not improve by asking again.
                    return ChatReply(None, f"{self.who} answered HTTP {response.status_code}: "
                                           f"{body[:300].decode('utf-8', 'replace')}", attempt + 1)
                elif len(body) > self.max_reply_bytes:
                    return ChatReply(None, f"{self.who}'s reply is over {self.max_reply_bytes} bytes", attempt + 1)
                else:
                    return self._content(body, attempt + 1)
            if attempt < self.max_retries:
                self.sleep(self._delay(attempt, response))
        return ChatReply(None, f"{error} (gave up after {self.max_retries + 1} attempts)", self.max_retries + 1)

    def _content(self, body: bytes, attempts: int) -> ChatReply:
        text = body.decode("utf-8", "replace")
        try:
            data = httpx.Response(200, content=body).json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return ChatReply(None, f"{self.who}'s reply is not a chat completion: {text[:300]!r}", attempts)
        if not isinstance(content, str):
            return ChatReply(None, f"{self.who}'s reply has no text content: {text[:300]!r}", attempts)
        usage = data.get("usage") if isinstance(data, dict) else None
        tokens = {k: int(v) for k, v in (usage or {}).items()
                  if k in ("prompt_tokens", "completion_tokens", "total_tokens") and isinstance(v, int)}
        return ChatReply(content, "", attempts, tokens)
