"""Admission control for the agent API at the ASGI level (config/asgi.py wraps the site's HTTP side with it).

Under ASGI, Django runs each request's sync part in a thread of its own, without a bound: two hundred agents
stepping at once meant two hundred threads taking turns at the GIL and at the database's lock, and each turn of the
one that held the lock waited behind all the others. Requests to /api/vge/ wait here instead, in the event loop and
at no cost, until one of AGENT_API_CONCURRENCY places is free; every request is served, in arrival order.
"""
from __future__ import annotations

import asyncio

from django.conf import settings

AGENT_PREFIX = "/api/vge/"


def agent_admission(app, limit: int | None = None):
    places: asyncio.Semaphore | None = None

    async def application(scope, receive, send):
        nonlocal places
        if scope.get("type") != "http" or not scope.get("path", "").startswith(AGENT_PREFIX):
            return await app(scope, receive, send)
        if places is None:
            places = asyncio.Semaphore(limit or settings.AGENT_API_CONCURRENCY)
        async with places:
            return await app(scope, receive, send)

    return application
