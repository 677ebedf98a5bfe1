"""A local OpenAI-compatible chat endpoint that stands in for the LLM judge: tests, benchmarks and demos use it.

It answers the PLAN judge protocol with a crude deterministic policy (True when the answer's words all occur in
the output), after an optional delay. `script` lets a test dictate replies per request (HTTP status, body,
delay) to exercise 429s, 5xx, timeouts and malformed replies over a real socket.
`python -m scoring.benchmarks.plan.core.local_judge --port 8099` serves it until interrupted.
"""
from __future__ import annotations

import argparse
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from scoring.benchmarks.plan.core.rules import normalise
from scoring.core.local_http import LocalServer, serve_until_interrupted


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # assistant text; None: use the default policy
    body: bytes | None = None  # raw body instead of a chat completion (malformed replies)
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


Script = Callable[[int, dict[str, Any]], Reply | None]  # (request number from 1, request JSON) -> reply


def default_policy(request: dict[str, Any]) -> str:
    user = next((m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"), "")
    answer = re.search(r"^Ground-truth answer: (.*)$", user, re.M)
    output = re.search(r"^Model output: (.*)$", user, re.M)
    if answer and output:
        wanted = set(normalise(answer.group(1)).split())
        return "True" if wanted and wanted <= set(normalise(output.group(1)).split()) else "False"
    reply = re.search(r"^Model reply: (.*)$", user, re.M)
    letters = re.findall(r"^([A-Z])\. ", user, re.M)
    if reply:
        found = [letter for letter in letters if re.search(rf"\b{letter}\b", reply.group(1))]
        return found[0] if len(found) == 1 else "None"
    return "False"


class LocalJudgeServer(LocalServer):
    """Serves on 127.0.0.1 in a background thread; `base_url` ends in /v1 like the OpenAI API."""

    thread_name = "local-judge"

    def __init__(self, *, delay: float = 0.0, script: Script | None = None, port: int = 0):
        self.delay = delay
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # http.server's naming
                length = int(self.headers.get("content-length") or 0)
                try:
                    payload = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    payload = {}
                with server._lock:
                    server.requests.append(payload)
                    number = len(server.requests)
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    reply = (server.script(number, payload) if server.script else None) or Reply()
                    time.sleep(reply.delay or server.delay)
                    if reply.body is not None:
                        body = reply.body
                    elif reply.status != 200:
                        body = json.dumps({"error": {"message": f"status {reply.status}"}}).encode()
                    else:
                        content = reply.content if reply.content is not None else default_policy(payload)
                        body = json.dumps({
                            "id": f"local-{number}", "object": "chat.completion", "model": payload.get("model", ""),
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        }).encode()  # fmt: skip
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client gave up (a timeout test)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self._listen(Handler, port)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the local stand-in PLAN judge.")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each reply")
    args = parser.parse_args(argv)
    return serve_until_interrupted(LocalJudgeServer(delay=args.delay, port=args.port), "local judge")


if __name__ == "__main__":
    raise SystemExit(main())
