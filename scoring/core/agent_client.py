"""The hub's VGE agent API over HTTP (simulator/api.py, token auth): what the runner's VGE protocol plays through,
from the command line and from the hub's own worker alike. Refusals raise `AgentApiError` with the API's message.
Retries connection errors and 5xx a few times (a step is only retried when no answer came, and the API refuses a
second action on an episode already over, so a retry never plays a turn twice unnoticed). Pure (httpx, no Django).
"""
from __future__ import annotations

import time
from typing import Any, Mapping

import httpx


class AgentApiError(RuntimeError):
    pass


class HttpAgentApi:
    def __init__(self, *, base_url: str, token: str, timeout: float = 60.0, retries: int = 3,
                 transport: httpx.BaseTransport | None = None):
        self.base_url = base_url.rstrip("/")
        self.retries = retries
        self._http = httpx.Client(base_url=self.base_url, headers={"Authorization": f"Token {token}"},
                                  timeout=httpx.Timeout(timeout), transport=transport)
        self.calls = 0
        self.seconds = 0.0  # time spent waiting for the agent API (the hub's per-step cost, for perf/hub_run.py)

    def __repr__(self) -> str:  # never the token
        return f"HttpAgentApi({self.base_url!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "HttpAgentApi":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> httpx.Response:
        for attempt in range(self.retries + 1):
            started = time.monotonic()
            try:
                response = self._http.request(method, path, json=body)
            except httpx.TransportError as exc:
                if attempt == self.retries:
                    raise AgentApiError(f"could not reach the agent API at {self.base_url} ({type(exc).__name__})") from None
                time.sleep(0.2 * 2**attempt)
                continue
            finally:
                self.calls += 1
                self.seconds += time.monotonic() - started
            if response.status_code >= 500 and attempt < self.retries:
                time.sleep(0.2 * 2**attempt)
                continue
            if response.status_code >= 400:
                try:
                    detail = response.json().get("detail") or response.json()
                except ValueError:
                    detail = response.text[:300]
                raise AgentApiError(f"the agent API refused {method} {path}: HTTP {response.status_code}: {detail}")
            return response
        raise AgentApiError("unreachable")  # pragma: no cover

    def start(self, task: str, options: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self._request("POST", "/api/vge/episodes/", {"task": task, **options}).json())

    def act(self, episode: int, output: str) -> dict[str, Any]:
        return dict(self._request("POST", f"/api/vge/episodes/{episode}/act/", {"output": output}).json())

    def image(self, url: str) -> bytes:
        return self._request("GET", url).content
