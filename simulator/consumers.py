"""Websocket of the play page (a thin wrapper): dispatch on the message type, call the same services as the
agent API (episode_step persists the step before we answer), send the outcome.

Messages in: {"type": "act", "action": ..., "coord": [x, y], "params": [...]}, {"type": "give_up"},
{"type": "sync"}. Out: "state" (the whole page state, on connect and on sync), "step" (one turn's feedback and
the new observation), "refused" (a message that changed nothing, with the reason), "readonly".
Second tab policy: the newest connection to an episode takes over; older tabs turn read-only.
"""
from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.benchmarks.vge.core.play import PlayInputError, action_text
from scoring.core import bounded
from simulator import selectors
from simulator.engines import EpisodeError, guest_episode_ids
from simulator.services.episodes import episode_give_up, episode_step

MAX_MESSAGE = 4096
MAX_DEPTH = 8  # an action message nests 2 deep: {"type": "act", "coord": [x, y], ...}
READ_ONLY_MESSAGE = ("This episode was opened in another tab or window, which now plays it; this tab is "
                     "read-only. Reload it to play here again.")


def episode_group(episode_id: int) -> str:
    return f"vge-episode-{episode_id}"


class PlayConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.episode_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.user = self.scope.get("user")
        # an anonymous visitor plays the practice episodes their browser started (issue 32)
        self.guests: list[int] = []
        self.read_only = False
        self.group: str | None = None
        await self.accept()
        try:
            # the session is read from the database: off the event loop
            self.guests = await database_sync_to_async(guest_episode_ids)(self.scope.get("session"))
            state = await database_sync_to_async(selectors.play_state)(
                episode_id=self.episode_id, user=self.user, guest_episodes=self.guests)
        except EpisodeError as exc:
            await self.send_json({"type": "refused", "message": exc.message, "fatal": True})
            await self.close(code=4000 + exc.status)
            return
        self.group = episode_group(self.episode_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # Older tabs on this episode hear this and turn read-only (works across processes with channels_redis).
        await self.channel_layer.group_send(self.group, {"type": "episode.opened", "channel": self.channel_name})
        await self.send_json(state)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def episode_opened(self, event: dict[str, Any]) -> None:
        if event["channel"] != self.channel_name and not self.read_only:
            self.read_only = True
            await self.send_json({"type": "readonly", "message": READ_ONLY_MESSAGE})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        # Decode here, not in decode_json, so that a broken message is refused instead of closing the socket.
        if self.group is None:
            return
        if text_data is None or len(text_data) > MAX_MESSAGE:
            await self._refuse("Messages must be JSON text of at most 4 KB.")
            return
        try:
            content = bounded.loads(text_data, max_depth=MAX_DEPTH)
        except bounded.TooDeep:
            await self._refuse(f"That message nests lists or objects more than {MAX_DEPTH} deep; nothing was played.")
            return
        except (ValueError, RecursionError):
            await self._refuse("That message is not JSON; nothing was played.")
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "sync":
            await self.send_json(await database_sync_to_async(selectors.play_state)(
                episode_id=self.episode_id, user=self.user, guest_episodes=self.guests))
            return
        if kind not in ("act", "give_up"):
            await self._refuse(f"Unknown message type {str(kind)[:40]!r}; expected act, give_up or sync.")
            return
        if self.read_only:
            await self._refuse(READ_ONLY_MESSAGE)
            return
        if kind == "give_up":
            try:
                await database_sync_to_async(episode_give_up)(episode_id=self.episode_id, user=self.user)
            except EpisodeError as exc:
                await self._refuse(exc.message)
                return
            await self.send_json(await database_sync_to_async(selectors.play_state)(
                episode_id=self.episode_id, user=self.user, guest_episodes=self.guests))
            return
        try:
            text = action_text(content)
        except PlayInputError as exc:
            await self._refuse(f"Not a valid action ({exc.field}: {exc.message}); nothing was played.")
            return
        try:
            outcome, obs = await database_sync_to_async(episode_step)(
                episode_id=self.episode_id, user=self.user, output=text)
        except EpisodeError as exc:
            await self._refuse(exc.message)
            return
        await self.send_json({"type": "step", "step": selectors.public_step(outcome.as_dict()), "observation": obs,
                              "seq": content.get("seq")})
        if outcome.done:  # the page shows the episode's metrics at the end
            await self.send_json(await database_sync_to_async(selectors.play_state)(
                episode_id=self.episode_id, user=self.user, guest_episodes=self.guests))

    async def _refuse(self, message: str) -> None:
        await self.send_json({"type": "refused", "message": message})
