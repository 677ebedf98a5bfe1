"""Websocket for a board: tells the page to refresh when a score lands on its split (a thin wrapper).

Two sources, so that it works with any channel layer: the `board.updated` group message the scoring pipeline
sends, and a light watch of the split's fingerprint (one small query every few seconds), which catches
scores written by a worker process that an in-memory channel layer cannot reach.

On (re)connect the page passes the fingerprint of the data it shows (`?since=`); when that is not the current one
(a score landed while the page was offline) the socket says "updated" at once. Every "updated" carries the new
fingerprint, for the page's next reconnect.
"""
import asyncio
import contextlib
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from leaderboard.selectors import board_fingerprint
from scoring.events import board_group


class BoardConsumer(AsyncJsonWebsocketConsumer):
    poll_seconds: float = 3.0

    async def connect(self) -> None:
        self.split_id = int(self.scope["url_route"]["kwargs"]["split_id"])
        self.group = board_group(self.split_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        since = (query.get("since") or [""])[0][:200]
        self.fingerprint = await database_sync_to_async(board_fingerprint)(split_id=self.split_id)
        if since and since != self.fingerprint:
            await self.send_json({"type": "updated", "submission": None, "fingerprint": self.fingerprint})
        self.watch = asyncio.ensure_future(self._watch())

    async def disconnect(self, code: int) -> None:
        if getattr(self, "watch", None):
            self.watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watch
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.poll_seconds)
            current = await database_sync_to_async(board_fingerprint)(split_id=self.split_id)
            if current != self.fingerprint:
                self.fingerprint = current
                await self.send_json({"type": "updated", "submission": None, "fingerprint": current})

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        return  # the board only listens: what a client sends is not even decoded (a deep nest would close the socket)

    async def board_updated(self, event: dict) -> None:
        self.fingerprint = await database_sync_to_async(board_fingerprint)(split_id=self.split_id)
        await self.send_json({"type": "updated", "submission": event.get("submission"), "fingerprint": self.fingerprint})
