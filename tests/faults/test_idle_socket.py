"""Live pages on the production set-up: a websocket on the Redis channel layer stays open while idle and still
receives what the worker announces (issue 13, defect 3: every socket used to die after about 5 s idle)."""
from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application
from scoring.events import submission_group
from scoring.models import Submission
from tests.scoring.factories import ModelEntryFactory, SplitFactory
from tests.websockets import headers_for, run_async

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]


def idle_seconds() -> float:
    """An idle socket's consumer waits in BZPOPMIN calls that Redis holds `brpop_timeout` seconds each, on a client
    that gives up a read after `socket_timeout`: idle longer than both together, the socket has been through several
    blocking waits and past the read timeout (a timeout that a held read outlasted killed it after 5 s)."""
    from channels_redis.core import RedisChannelLayer

    socket_timeout = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["socket_timeout"]
    return socket_timeout + RedisChannelLayer.brpop_timeout + 1


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_submission_socket_idle_past_the_read_timeouts_on_redis_still_receives_progress(user):
    assert "redis" in settings.CHANNEL_LAYERS["default"]["BACKEND"].lower()
    idle = idle_seconds()  # 36 s: socket_timeout 30, brpop_timeout 5
    submission = Submission.objects.create(
        model_entry=ModelEntryFactory(owner=user), split=SplitFactory(), submitter=user
    )
    headers = headers_for(user)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/submissions/{submission.pk}/", headers=headers)
        assert (await socket.connect(timeout=5))[0]
        assert (await socket.receive_json_from(timeout=5))["status"] == "queued"  # the state on connect
        # Given the socket stays idle past the read timeouts (nothing changes; the consumer waits on the channel layer)
        assert await socket.receive_nothing(timeout=idle, interval=0.5)
        # When the worker announces progress
        await get_channel_layer().group_send(
            submission_group(submission.pk), {"type": "submission.progress", "done": 150, "total": 206}
        )
        # Then the socket, still open, passes it on
        assert await socket.receive_json_from(timeout=5) == {"type": "progress", "done": 150, "total": 206}
        await socket.disconnect()

    run_async(scenario)
