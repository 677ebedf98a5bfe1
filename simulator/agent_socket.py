"""The agent socket: a gym-style websocket for harnesses (as OpenEnv serves environments), beside the HTTP agent API.

One socket per harness, authenticated once by its API token, then any number of episodes: `reset` starts one (the
body of `POST /api/vge/episodes/`), `step` plays one model output in it (the body of `POST .../act/`), `state`
reads it (the body of `GET /api/vge/episodes/<id>/`). The same services answer as for the HTTP API
(`simulator.api.start_answer`, `step_answer`, `detail_answer`), so the same steps are stored and scored the same way;
only the per-request HTTP parsing, token check and Django request stack are gone.

Frames: JSON text, or msgpack in binary frames; each reply is in the encoding of the message it answers. Every
message may carry an `id`, echoed in its reply, so a harness may send several without waiting. Messages:
  {"type": "auth", "token": KEY}  (or an `Authorization: Token KEY` header on the handshake)
  {"type": "reset", "task": ID, "perturbation"?, "lambda"?, "history"?, "instruction"?}
  {"type": "step", "output": TEXT, "episode"?: ID}   (default: the socket's current episode)
  {"type": "state", "episode"?: ID}                  (also makes it the current one: how a dropped harness resumes)
Replies: {"type": <the message's>, "id", "status", ...the HTTP API's body}; a message that plays nothing gets
{"type": "error", "id", "status", "error": {...the API's error body}} and the socket stays open.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgpack
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connections
from rest_framework.exceptions import AuthenticationFailed

from accounts.auth import CachedTokenAuthentication
from scoring.core import bounded
from scoring.errors import ServiceRefusal
from simulator import api
from simulator.agent_writer import writer
from simulator.asgi import LARGEST_ID, compact_json, token_key, with_connections
from simulator.serializers import plain_act_output

# The largest message: a model output of ACT_OUTPUT_MAX characters (up to 4 bytes each in UTF-8) and its envelope.
MAX_MESSAGE = 4 * 20000 + 4096
MAX_DEPTH = 8  # {"type": "reset", ...options}: 2 deep
TYPES = ("auth", "reset", "step", "state")

_threads: list[tuple[ThreadPoolExecutor, int]] = []


def _pool() -> ThreadPoolExecutor:
    """The threads that run sockets' database work, as many as the HTTP agent API's places (AGENT_API_CONCURRENCY):
    a bounded pool, not a thread per socket, for the reason simulator.asgi gives."""
    if not _threads:
        size = settings.AGENT_API_CONCURRENCY
        _threads.append((ThreadPoolExecutor(size, thread_name_prefix="agent-socket"), size))
    return _threads[0][0]


def pool_shutdown() -> None:
    """Close every pool thread's database connection and stop the threads, the agent writer's too (a test's end; the
    next socket makes a new pool). Each thread closes its own: Django's connections belong to the thread that opened
    them."""
    writer.stop()
    if not _threads:
        return
    pool, size = _threads.pop()
    barrier = threading.Barrier(size)

    def close(_: int) -> None:
        barrier.wait(timeout=30)  # holds each thread until all have a task, so every thread gets exactly one
        connections.close_all()

    list(pool.map(close, range(size)))
    pool.shutdown(wait=True)


def _authenticated(key: str):
    """The token's user, or None (the same check and cache as every API request)."""
    try:
        user, _ = CachedTokenAuthentication().authenticate_credentials(key)
    except AuthenticationFailed:
        return None
    return user


class AgentConsumer(AsyncWebsocketConsumer):
    # No channel layer: the socket joins no group and hears from nobody but its harness, so it needs no channel of
    # its own (a channel and its receive loop per socket, in Redis on the production profile). Channels gives a
    # consumer whose alias is not configured no layer.
    channel_layer_alias = None

    async def connect(self) -> None:
        self.user = None
        self.episode: int | None = None
        await self.accept()
        key = token_key(self.scope)
        if key is not None:
            self.user = await self._run(lambda: _authenticated(key))
            if self.user is None:
                await self.close(code=4401)

    async def __call__(self, scope, receive, send) -> None:
        """Channels' loop for a consumer without a channel layer, minus the task and the asyncio.wait it spends on
        every message (await_many_dispatch waits on its one source as on many): the next message is read once the
        last one is answered, as there."""
        self.scope = scope
        self.loop = asyncio.get_running_loop()  # once: each call makes a getpid system call (AgentWriter.run)
        self.channel_layer = None
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch, without the thread hop it makes before every message to close old database connections
        (sync_to_async(close_old_connections): a served step's largest cost in the event loop, perf/
        agent_serve_profile.py). This consumer never touches the database on the event loop; its threads look after
        their own connections (simulator.agent_writer, simulator.asgi.with_connections)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        binary = bytes_data is not None
        message: Any = None
        try:
            message = self._decode(text_data, bytes_data)
            reply = await self._dispatch(message)
        except ServiceRefusal as exc:  # the site's one refusal, answered in the API's error body
            reply = _error(exc.status, exc.body())
        if isinstance(message, dict) and "id" in message:
            reply["id"] = message["id"]
        if binary:
            await self.send(bytes_data=msgpack.packb(reply, use_bin_type=True))
        else:
            await self.send(text_data=compact_json(reply))

    def _decode(self, text_data: str | None, bytes_data: bytes | None) -> Any:
        size = len(text_data) if text_data is not None else len(bytes_data or b"")
        if size > MAX_MESSAGE:
            raise ServiceRefusal(status=400, message=f"A message may be at most {MAX_MESSAGE} bytes; this one has {size}.")
        if text_data is not None:
            try:
                return bounded.loads(text_data, max_depth=MAX_DEPTH)
            except bounded.TooDeep as exc:
                raise ServiceRefusal(status=400, message=str(exc)) from None
            except (ValueError, RecursionError):
                raise ServiceRefusal(status=400, message="That message is not JSON; nothing was played.") from None
        try:
            # Bounded by the frame's size (checked above); a message needs no long array or map, and the decoder
            # refuses nesting past its own stack (StackError).
            return msgpack.unpackb(bytes_data or b"", raw=False, strict_map_key=True, max_array_len=64,
                                   max_map_len=64)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, TypeError):
            raise ServiceRefusal(status=400, message="That binary message is not msgpack; nothing was played.") from None

    async def _dispatch(self, message: Any) -> dict:
        kind = message.get("type") if isinstance(message, dict) else None
        if kind not in TYPES:
            raise ServiceRefusal(status=400, message=f"Unknown message type {str(kind)[:40]!r}; expected one of {', '.join(TYPES)}.",
                          field="type")
        if kind == "auth":
            return await self._auth(message)
        if self.user is None:
            raise ServiceRefusal(status=401, message="Authenticate first: {\"type\": \"auth\", \"token\": ...} or an Authorization header.")
        user = self.user
        if kind == "reset":
            data = {k: v for k, v in message.items() if k not in ("type", "id")}
            status, body = await writer.run(lambda: api.start_answer(user=user, data=data, in_batch=True), self.loop)
            if status == 201:
                self.episode = body["episode"]
            return {"type": kind, "status": status, **body} if status < 400 else _error(status, body)
        episode = self._episode(message)
        if kind == "state":
            body = await self._run(lambda: api.detail_answer(user=user, episode_id=episode))
            self.episode = episode
            return {"type": kind, "status": 200, **body}
        output = plain_act_output(message)
        if output is None:
            raise ServiceRefusal(status=400, message="A step needs `output`: the model's text, at most 20000 characters, no NUL.",
                          field="output")
        status, body = await writer.run(
            lambda: api.step_answer(user=user, episode_id=episode, output=output, in_batch=True), self.loop)
        return {"type": kind, "status": status, **body} if status < 400 else _error(status, body)

    async def _auth(self, message: dict) -> dict:
        key = message.get("token")
        if not isinstance(key, str) or not key or len(key) > 200:
            raise ServiceRefusal(status=400, message="`token` must be your API token.", field="token")
        user = await self._run(lambda: _authenticated(key))
        if user is None:
            raise ServiceRefusal(status=401, message="Invalid token.", field="token")
        self.user = user
        return {"type": "auth", "status": 200, "user": user.get_username()}

    def _episode(self, message: dict) -> int:
        episode = message.get("episode", self.episode)
        if episode is None:
            raise ServiceRefusal(status=400, message="No episode: send `reset` first, or name one with `episode`.", field="episode")
        if isinstance(episode, bool) or not isinstance(episode, int) or not 0 < episode <= LARGEST_ID:
            raise ServiceRefusal(status=400, message="`episode` must be an episode id.", field="episode")
        return episode

    async def _run(self, call: Callable[[], Any]) -> Any:
        return await self.loop.run_in_executor(_pool(), with_connections, call)


def _error(status: int, body: dict) -> dict:
    return {"type": "error", "status": status, "error": body}
