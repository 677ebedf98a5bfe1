"""Websocket for a board: tells the page to refresh when a score lands on its split (a thin wrapper)."""
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.events import board_group


class BoardConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.group = board_group(int(self.scope["url_route"]["kwargs"]["split_id"]))
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        return  # the board only listens

    async def board_updated(self, event: dict) -> None:
        await self.send_json({"type": "updated", "submission": event.get("submission")})
