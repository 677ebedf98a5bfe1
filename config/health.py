"""/healthz: can the site reach its database, broker and channel layer? Each check returns (ok, detail); the page
answers 200 when all are reachable, else 503, with each check's detail."""
from __future__ import annotations

import asyncio
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from config.celery import app as celery_app


def check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True, connection.vendor
    except Exception as exc:  # noqa: BLE001 - report, never raise, from a health check
        return False, f"{type(exc).__name__}: {exc}"


def check_broker() -> tuple[bool, str]:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            return True, conn.transport_cls if isinstance(conn.transport_cls, str) else conn.transport.driver_type
    except Exception as exc:  # noqa: BLE001 - report, never raise, from a health check
        return False, f"{type(exc).__name__}: {exc}"


def check_channel_layer() -> tuple[bool, str]:
    layer = get_channel_layer()
    if layer is None:
        return False, "no channel layer configured"
    message = {"type": "health.ping", "nonce": uuid.uuid4().hex}

    async def round_trip() -> dict:
        channel = await layer.new_channel()
        await layer.send(channel, message)
        return await layer.receive(channel)

    try:
        received = async_to_sync(asyncio.wait_for)(round_trip(), timeout=3)
        return received.get("nonce") == message["nonce"], type(layer).__name__
    except Exception as exc:  # noqa: BLE001 - report, never raise, from a health check
        return False, f"{type(exc).__name__}: {exc}"


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {
        "database": check_database(),
        "broker": check_broker(),
        "channel_layer": check_channel_layer(),
    }
    ok = all(result for result, _ in checks.values())
    body = {"status": "ok" if ok else "degraded", "checks": {k: {"ok": r, "detail": d} for k, (r, d) in checks.items()}}
    return JsonResponse(body, status=200 if ok else 503)
