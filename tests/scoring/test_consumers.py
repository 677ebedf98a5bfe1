"""The submission websocket (`/ws/submissions/<id>/`): its progress reaches the submitter and staff, and nobody else
can subscribe. Through the real ASGI stack (origin check, session auth, router) and the in-memory channel layer."""
from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from scoring.events import submission_group
from scoring.models import Submission
from tests.scoring.factories import ModelEntryFactory, SplitFactory
from tests.websockets import headers_for, run_async

pytestmark = pytest.mark.django_db(transaction=True)

REFUSED = 4403  # the close code of a refused subscription (as HTTP 403)


@pytest.fixture
def submission(user) -> Submission:
    return Submission.objects.create(model_entry=ModelEntryFactory(owner=user), split=SplitFactory(), submitter=user)


def connect_outcome(submission_id: int, user) -> tuple[bool, object]:
    """Whether the socket opened, and what it received after a progress message was sent to the group."""
    outcome: list[tuple[bool, object]] = []
    headers = headers_for(user)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/submissions/{submission_id}/", headers=headers)
        connected, code = await socket.connect(timeout=5)
        if not connected:
            outcome.append((False, code))
            await socket.disconnect()  # what the server tells the consumer once it has refused the handshake
            return
        await get_channel_layer().group_send(
            submission_group(submission_id), {"type": "submission.progress", "done": 150, "total": 206}
        )
        outcome.append((True, await socket.receive_json_from(timeout=3)))
        await socket.disconnect()

    run_async(scenario)
    return outcome[0]


def test_submitter_follows_the_progress_of_their_submission(submission, user):
    assert connect_outcome(submission.pk, user) == (True, {"type": "progress", "done": 150, "total": 206})


def test_staff_follow_the_progress_of_any_submission(submission, django_user_model):
    staff = django_user_model.objects.create_user("carol", password="pw-carol-123", is_staff=True)
    assert connect_outcome(submission.pk, staff) == (True, {"type": "progress", "done": 150, "total": 206})


def test_anonymous_visitor_cannot_subscribe_to_a_submission(submission):
    assert connect_outcome(submission.pk, None) == (False, REFUSED)


def test_another_user_cannot_subscribe_to_a_submission(submission, other_user):
    assert connect_outcome(submission.pk, other_user) == (False, REFUSED)


def test_staff_cannot_subscribe_to_a_submission_that_does_not_exist(django_user_model):
    staff = django_user_model.objects.create_user("carol", password="pw-carol-123", is_staff=True)
    assert connect_outcome(987654, staff) == (False, REFUSED)
