"""Websocket for a submission's page: its state on every (re)connect, progress while scoring, then the final status
(a thin wrapper).

Two sources, so that it works on every set-up: the group messages the scoring pipeline sends (instant with a
shared channel layer such as Redis), and a light watch of the submission's row (one small query a second), which
the worker updates as it goes, so a worker in another process reaches the page with the in-memory layer too. On
connect the current state is sent at once: a page that was disconnected while the submission finished catches up.

Messages out: "state" {status, label, done, total, final} (on connect and when the row changes), "progress"
{done, total} and "finished" {status} (group messages). The watch stops once the state is final; the page then closes the socket.

Only the submitter and staff may subscribe (as for the page itself); anyone else is refused before the handshake
completes, with close code 4403."""
from __future__ import annotations

import asyncio
import contextlib

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.events import submission_group
from scoring.selectors import submission_live_state, submission_watchable_by

REFUSED = 4403  # like HTTP 403: this user may not follow this submission


class SubmissionConsumer(AsyncJsonWebsocketConsumer):
    poll_seconds: float = 1.0
    group: str | None = None
    watch: asyncio.Future | None = None

    async def connect(self) -> None:
        self.submission_id = int(self.scope["url_route"]["kwargs"]["pk"])
        allowed = await database_sync_to_async(submission_watchable_by)(
            submission_id=self.submission_id, user=self.scope.get("user")
        )
        if not allowed:
            await self.close(code=REFUSED)
            return
        self.group = submission_group(self.submission_id)
        self.last_state: dict | None = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if not await self._send_state():
            self.watch = asyncio.ensure_future(self._watch())

    async def disconnect(self, code: int) -> None:
        if self.watch is not None:
            self.watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watch
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        return  # the page only listens: what a client sends is not even decoded (a deep nest would close the socket)

    async def _send_state(self) -> bool:
        """Send the row's state if it changed since the last one sent; True once it is final."""
        state = await database_sync_to_async(submission_live_state)(submission_id=self.submission_id)
        if state is None:  # deleted meanwhile
            await self.close()
            return True
        if state != self.last_state:
            self.last_state = state
            await self.send_json(state)
        return state["final"]

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.poll_seconds)
            if await self._send_state():
                return

    async def submission_progress(self, event: dict) -> None:
        await self.send_json({"type": "progress", "done": event["done"], "total": event["total"]})

    async def submission_finished(self, event: dict) -> None:
        await self.send_json({"type": "finished", "status": event["status"]})
