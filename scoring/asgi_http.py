"""What the ASGI fast paths (leaderboard.asgi, simulator.asgi) share: the headers Django's middleware would add to a
response, sending one whole response, and reading a request body that can still be handed to Django unread."""
from __future__ import annotations

from collections.abc import Awaitable, Callable

from django.conf import settings

Receive = Callable[[], Awaitable[dict]]


def response_headers(length: int, content_type: str, *, filename: str = "",
                     extra: tuple[tuple[bytes, bytes], ...] = ()) -> list[tuple[bytes, bytes]]:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(length).encode()),
        (b"x-frame-options", getattr(settings, "X_FRAME_OPTIONS", "DENY").encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    if getattr(settings, "SECURE_REFERRER_POLICY", None):
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if getattr(settings, "SECURE_CROSS_ORIGIN_OPENER_POLICY", None):
        headers.append((b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()))
    if filename:
        headers.append((b"content-disposition", f'attachment; filename="{filename}"'.encode()))
    headers.extend(extra)
    return headers


async def respond(send, status: int, body: bytes, content_type: str, **header_options) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": response_headers(len(body), content_type, **header_options)})
    await send({"type": "http.response.body", "body": body})


def header(scope, name: bytes) -> bytes | None:
    """The value of a request header (the first, if repeated)."""
    return next((value for key, value in scope.get("headers", ()) if key == name), None)


async def read_body(receive: Receive, limit: int) -> tuple[bytes, list[dict], bool]:
    """The request body, the messages it came in (to replay to Django when the fast path declines), and whether it
    was read whole: reading stops past `limit` bytes or at a disconnect, and Django gets what was read and the rest."""
    messages: list[dict] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return b"", messages, False
        size += len(message.get("body", b""))
        if size > limit:
            return b"", messages, False
        if not message.get("more_body", False):
            return b"".join(m.get("body", b"") for m in messages), messages, True


def replaying(messages: list[dict], receive: Receive) -> Receive:
    """A `receive` that first gives back the messages already read."""
    pending = list(messages)

    async def replay() -> dict:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
