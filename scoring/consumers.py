"""Websocket for a submission's page: progress while scoring, then the final status (a thin wrapper)."""
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.events import submission_group


class SubmissionConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.group = submission_group(int(self.scope["url_route"]["kwargs"]["pk"]))
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def submission_progress(self, event: dict) -> None:
        await self.send_json({"type": "progress", "done": event["done"], "total": event["total"]})

    async def submission_finished(self, event: dict) -> None:
        await self.send_json({"type": "finished", "status": event["status"]})
