"""The submission websocket (`/ws/submissions/<id>/`): its state on connect and its progress reach the submitter and
staff, and nobody else can subscribe; it follows the row, so a worker in another process reaches it. Through the real ASGI stack (origin check, session auth, router) and the in-memory channel layer."""
from __future__ import annotations

import asyncio
import time

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connections

from config.asgi import application
from scoring.consumers import SubmissionConsumer
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
        first = await socket.receive_json_from(timeout=3)
        assert first["type"] == "state" and first["status"] == "queued", first
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


def closing_connections(function):
    def run():
        try:
            function()
        finally:
            connections.close_all()

    return run


def states_seen(submission_id: int, user, change=None, *, until_final: bool = True) -> list[dict]:
    """The messages a socket receives: the state on connect, then (after `change` ran in a thread, as another
    process would write the row) until a final state arrives."""
    seen: list[dict] = []
    headers = headers_for(user)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/submissions/{submission_id}/", headers=headers)
        assert (await socket.connect(timeout=5))[0]
        seen.append(await socket.receive_json_from(timeout=3))
        if change is not None:
            await asyncio.to_thread(closing_connections(change))
        while until_final and not seen[-1].get("final"):
            seen.append(await socket.receive_json_from(timeout=5))
        await socket.disconnect()

    run_async(scenario)
    return seen


def test_a_socket_that_connects_after_the_scoring_finished_gets_the_final_state(submission, user):
    # The known bug: a page offline while the submission finished stayed "Queued" after reconnecting.
    Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.SCORED, progress_done=8,
                                                       progress_total=8)
    assert states_seen(submission.pk, user) == [
        {"type": "state", "status": "scored", "label": "Scored", "done": 8, "total": 8, "final": True}
    ]


def test_the_socket_follows_progress_and_the_end_written_by_another_process(submission, user, monkeypatch):
    # No group message at all (as with the in-memory layer and a worker process): only the row changes.
    monkeypatch.setattr(SubmissionConsumer, "poll_seconds", 0.1)

    def worker_writes():
        Submission.objects.filter(pk=submission.pk).update(
            status=Submission.Status.RUNNING, progress_done=3, progress_total=8)
        time.sleep(0.5)
        Submission.objects.filter(pk=submission.pk).update(
            status=Submission.Status.FAILED, progress_done=5, progress_total=8)

    seen = states_seen(submission.pk, user, worker_writes)
    assert seen[0]["status"] == "queued" and not seen[0]["final"]
    assert {"type": "state", "status": "running", "label": "Running", "done": 3, "total": 8, "final": False} in seen
    assert seen[-1] == {"type": "state", "status": "failed", "label": "Failed", "done": 5, "total": 8, "final": True}


def test_progress_is_sent_from_a_thread_that_runs_an_event_loop(caplog):
    """A scoring run called from code that holds an event loop in its thread (a browser test's driver, a notebook)
    still reaches the live pages: async_to_sync refuses such a thread, so the send moves to a thread of its own."""
    from scoring.events import submission_progress_event

    received = []

    async def scenario():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(submission_group(7), channel)
        submission_progress_event(submission_id=7, done=1, total=2)  # a sync call, with this loop running
        received.append(await asyncio.wait_for(layer.receive(channel), timeout=5))

    run_async(scenario)
    assert "could not send" not in caplog.text
    assert received == [{"type": "submission.progress", "done": 1, "total": 2}]


@pytest.mark.parametrize("message", ["[" * 1500 + "]" * 1500, "not json", '{"type": "anything"}'])
def test_a_message_sent_to_the_listening_socket_is_ignored_and_the_socket_stays_open(submission, user, message):
    # The page only listens: what a client sends (a deeply nested or broken JSON text too) is not decoded.
    headers = headers_for(user)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/submissions/{submission.pk}/", headers=headers)
        assert (await socket.connect(timeout=5))[0]
        await socket.receive_json_from(timeout=3)
        await socket.send_to(text_data=message)
        await get_channel_layer().group_send(
            submission_group(submission.pk), {"type": "submission.progress", "done": 1, "total": 2})
        assert await socket.receive_json_from(timeout=3) == {"type": "progress", "done": 1, "total": 2}
        await socket.disconnect()

    run_async(scenario)
