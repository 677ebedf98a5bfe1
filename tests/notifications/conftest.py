"""A real HTTP receiver on 127.0.0.1 (a thread running http.server on a free port) that answers with the statuses
a test scripts and records every call; and a dummy-benchmark split to score uploads on."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.scoring.factories import SampleFactory, SplitFactory


@dataclass
class Call:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    script: list[int] = field(default_factory=list)  # statuses to answer, in order; 200 once it runs out
    reply: bytes = b'{"ok": true}'
    calls: list[Call] = field(default_factory=list)


@pytest.fixture(autouse=True)
def _retries_due_at_once(settings):
    """Celery's eager mode runs a retry at once, ignoring its countdown, and an attempt before its time is not due
    (skipped); so the eager tests retry with no wait. test_webhook_retries.py holds the real waits."""
    settings.WEBHOOK_BACKOFF_SECONDS = 0


@pytest.fixture
def receiver():
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.calls.append(Call(headers={k.lower(): v for k, v in self.headers.items()}, body=body))
            status = state.script.pop(0) if state.script else 200
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(state.reply)))
            self.end_headers()
            self.wfile.write(state.reply)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/ebh"
    yield state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def notify_split(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy-notify", benchmark__scorer="dummy", name="test")
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def upload(client, body: bytes = b"1\n0\n1\n") -> int:
    response = client.post("/api/submissions/", {"benchmark": "dummy-notify", "split": "test", "model": "N-VLM",
                                                 "file": SimpleUploadedFile("pred.txt", body)}, format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["id"]
