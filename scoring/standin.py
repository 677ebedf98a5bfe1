"""A local OpenAI-compatible chat endpoint standing in for a model under evaluation: tests, the demo and the speed
script run the hub's runner against it over a real socket.

It answers each registered benchmark's protocol deterministically (the plugin's `standin`: EPIC one made-up box in
the task's format, PLAN an option letter picked by the question's hash, VGE a heuristic that clicks the parts it can
see in the view image), and reports token usage. For fault tests it can answer the first `fail_first` requests with
HTTP 429 (or, `fail_with="timeout"`, late past any sane client timeout), and it counts what it was asked:
`requests` (every request), `answered` (the 200 replies) and `asked` (the times each distinct conversation was
answered, so a test sees a sample asked twice). `python -m scoring.standin --port 8098` serves it until interrupted.
Pure (no Django).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any, Mapping

from scoring import benchmarks
from scoring.core.local_http import LocalServer, serve_until_interrupted


def request_images(request: Mapping[str, Any]) -> list[bytes]:
    """The data-URL images of a chat request, in order."""
    found = []
    for message in request.get("messages") or ():
        content = message.get("content") if isinstance(message, Mapping) else None
        for part in content if isinstance(content, list) else ():
            url = ((part.get("image_url") or {}).get("url") or "") if isinstance(part, Mapping) else ""
            if url.startswith("data:") and "," in url:
                found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


def conversation_key(request: Mapping[str, Any]) -> str:
    """What identifies one question: the messages' text (images by their digest) and the seed."""
    def plain(content: Any) -> Any:
        if isinstance(content, list):
            return [hashlib.sha256(p["image_url"]["url"].encode()).hexdigest()[:16]
                    if isinstance(p, Mapping) and p.get("type") == "image_url" else p for p in content]
        return content
    messages = [(m.get("role"), plain(m.get("content"))) for m in request.get("messages") or ()]
    return hashlib.sha256(json.dumps([messages, request.get("seed")], sort_keys=True).encode()).hexdigest()


def answer(request: Mapping[str, Any]) -> str:
    images = request_images(request)
    for plugin in benchmarks.plugins():
        policy = plugin.standin_function()
        reply = policy(request, images) if policy else None
        if reply is not None:
            return reply
    return "I do not know."


class StandInModel(LocalServer):
    """Serves on 127.0.0.1 in a background thread; `base_url` ends in /v1 like the OpenAI API."""

    thread_name = "standin-model"
    queue_size = 256

    def __init__(self, *, delay: float = 0.0, fail_first: int = 0, fail_with: str = "429", fail_delay: float = 3.0,
                 port: int = 0, api_key: str = ""):
        self.delay = delay
        self.fail_first = fail_first
        self.fail_with = fail_with
        self.fail_delay = fail_delay
        self.api_key = api_key
        self.requests = 0
        self.answered = 0
        self.asked: Counter[str] = Counter()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.authorizations: list[str] = []
        self.hosts: list[str] = []  # the Host header of each request (a run names its endpoint's host there)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _closed(self) -> None:
                # Counted open until its answer starts back: a client may send its next request the moment it
                # reads this one's, before this thread would reach a `finally`.
                if getattr(self, "open", False):
                    self.open = False
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, body: bytes) -> None:
                self._closed()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                if status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def do_POST(self) -> None:  # http.server's naming
                length = int(self.headers.get("content-length") or 0)
                try:
                    payload = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    payload = {}
                with server._lock:
                    server.requests += 1
                    number = server.requests
                    server.in_flight += 1
                    self.open = True
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                    server.authorizations.append(self.headers.get("authorization") or "")
                    server.hosts.append(self.headers.get("host") or "")
                try:
                    if server.api_key and self.headers.get("authorization") != f"Bearer {server.api_key}":
                        self._send(401, b'{"error": {"message": "bad API key"}}')
                        return
                    if number <= server.fail_first:
                        if server.fail_with == "timeout":  # too late: the client has given up by then
                            time.sleep(server.fail_delay)
                            self._send(504, b'{"error": {"message": "too late"}}')
                            return
                        else:
                            self._send(429, b'{"error": {"message": "slow down"}}')
                            return
                    if server.delay:
                        time.sleep(server.delay)
                    content = answer(payload)
                    with server._lock:
                        server.answered += 1
                        server.asked[conversation_key(payload)] += 1
                    words = sum(len(str(m.get("content")).split()) for m in payload.get("messages") or ())
                    self._send(200, json.dumps({
                        "id": f"standin-{number}", "object": "chat.completion", "model": payload.get("model", ""),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": words, "completion_tokens": len(content.split()),
                                  "total_tokens": words + len(content.split())},
                    }).encode())
                finally:
                    self._closed()

        self._listen(Handler, port)

    def repeated(self) -> int:
        """How many answers were given to a conversation already answered once."""
        return sum(n - 1 for n in self.asked.values() if n > 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the stand-in model for the three protocols.")
    parser.add_argument("--port", type=int, default=8098)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each reply")
    args = parser.parse_args(argv)
    return serve_until_interrupted(StandInModel(delay=args.delay, port=args.port), "stand-in model")


if __name__ == "__main__":
    raise SystemExit(main())
