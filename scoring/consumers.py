"""Websocket for a submission's page: progress while scoring, then the final status (a thin wrapper).

Only the submitter and staff may subscribe (as for the page itself); anyone else is refused before the handshake
completes, with close code 4403."""
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.events import submission_group
from scoring.selectors import submission_watchable_by

REFUSED = 4403  # like HTTP 403: this user may not follow this submission


class SubmissionConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        submission_id = int(self.scope["url_route"]["kwargs"]["pk"])
        allowed = await database_sync_to_async(submission_watchable_by)(
            submission_id=submission_id, user=self.scope.get("user")
        )
        if not allowed:
            await self.close(code=REFUSED)
            return
        self.group = submission_group(submission_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def submission_progress(self, event: dict) -> None:
        await self.send_json({"type": "progress", "done": event["done"], "total": event["total"]})

    async def submission_finished(self, event: dict) -> None:
        await self.send_json({"type": "finished", "status": event["status"]})
