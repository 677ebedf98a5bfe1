"""Helpers for tests through the real ASGI stack: run a scenario on a fresh event loop, one HTTP request through an
ASGI app, and the headers of a logged-in (or anonymous) browser."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.db import connections
from django.test import Client

ORIGIN = (b"origin", b"http://127.0.0.1")


def run_async(scenario) -> None:
    """A fresh loop in its own thread (a browser test may have left a loop running in this one); the database
    connection the consumer opened in asgiref's thread is closed afterwards, so the test database can be dropped."""

    async def then_close() -> None:
        try:
            await scenario()
        finally:
            await database_sync_to_async(connections.close_all)()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, then_close()).result()


def asgi_request(app, method: str, url: str, headers=(), body: bytes = b"", chunks: int = 1,
                 timeout: float = 30) -> tuple[int, dict, bytes]:
    """One HTTP request through an ASGI app, its body sent in `chunks` messages: status, headers, body."""
    path, _, query = url.partition("?")
    out: dict = {}

    async def scenario():
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
                 "root_path": "", "headers": [(b"host", b"testserver"), (b"content-length", str(len(body)).encode()),
                                              *headers],
                 "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
        communicator = ApplicationCommunicator(app, scope)
        step = max(1, -(-len(body) // chunks))
        parts = [body[i:i + step] for i in range(0, len(body), step)] or [b""]
        for i, part in enumerate(parts):
            await communicator.send_input({"type": "http.request", "body": part, "more_body": i < len(parts) - 1})
        start = await communicator.receive_output(timeout=timeout)
        payload = b""
        while True:
            message = await communicator.receive_output(timeout=timeout)
            payload += message.get("body", b"")
            if not message.get("more_body"):
                break
        out.update(status=start["status"], headers=dict(start["headers"]), body=payload)

    run_async(scenario)
    return out["status"], out["headers"], out["body"]


def headers_for(user) -> list[tuple[bytes, bytes]]:
    """The origin, and the session cookie of `user` logged in (none for None: an anonymous visitor)."""
    if user is None:
        return [ORIGIN]
    client = Client()
    client.force_login(user)
    return [ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
