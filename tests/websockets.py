"""Helpers for websocket tests through the real ASGI stack: run a scenario on a fresh event loop, and the headers
of a logged-in (or anonymous) browser."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

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


def headers_for(user) -> list[tuple[bytes, bytes]]:
    """The origin, and the session cookie of `user` logged in (none for None: an anonymous visitor)."""
    if user is None:
        return [ORIGIN]
    client = Client()
    client.force_login(user)
    return [ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
