"""The board websocket: a score landing on a split reaches the pages listening to that split's board."""
import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from leaderboard.consumers import BoardConsumer
from leaderboard.selectors import board_fingerprint
from scoring.events import board_group
from tests.leaderboard.conftest import make_entry, make_scored
from tests.websockets import run_async

ORIGIN = [(b"origin", b"http://127.0.0.1")]


@pytest.mark.django_db(transaction=True)
def test_board_socket_receives_updates_for_its_split_only():
    async def scenario():
        listening = WebsocketCommunicator(application, "/ws/boards/7/", headers=ORIGIN)
        other = WebsocketCommunicator(application, "/ws/boards/8/", headers=ORIGIN)
        assert (await listening.connect())[0] and (await other.connect())[0]
        await get_channel_layer().group_send(board_group(7), {"type": "board.updated", "submission": 42})
        message = await listening.receive_json_from(timeout=2)
        assert (message["type"], message["submission"]) == ("updated", 42)
        assert await other.receive_nothing(timeout=0.3)
        await listening.disconnect()
        await other.disconnect()

    run_async(scenario)


@pytest.mark.django_db(transaction=True)
def test_board_socket_notices_a_score_written_by_another_process(monkeypatch, epic_split):
    # A worker process with an in-memory channel layer cannot reach this process: the socket watches the data.
    monkeypatch.setattr(BoardConsumer, "poll_seconds", 0.2)
    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/boards/{epic_split.pk}/", headers=ORIGIN)
        assert (await socket.connect())[0]
        assert await socket.receive_nothing(timeout=0.5)  # nothing changed, nothing sent
        await database_sync_to_async(lambda: make_scored(epic_split, make_entry("Late"), [1.0] * 40))()
        assert (await socket.receive_json_from(timeout=3))["type"] == "updated"
        await socket.disconnect()

    run_async(scenario)


@pytest.mark.django_db(transaction=True)
def test_a_board_page_reconnecting_after_a_score_landed_is_told_at_once(epic_split):
    # The page passes the fingerprint of what it shows; a score that landed while it was offline is caught up.
    shown = board_fingerprint(split_id=epic_split.pk)

    async def scenario():
        current = WebsocketCommunicator(application, f"/ws/boards/{epic_split.pk}/?since={shown}", headers=ORIGIN)
        assert (await current.connect())[0]
        assert await current.receive_nothing(timeout=0.3)  # up to date: nothing to say
        await current.disconnect()
        await database_sync_to_async(lambda: make_scored(epic_split, make_entry("Offline"), [1.0] * 40))()
        behind = WebsocketCommunicator(application, f"/ws/boards/{epic_split.pk}/?since={shown}", headers=ORIGIN)
        assert (await behind.connect())[0]
        message = await behind.receive_json_from(timeout=2)
        assert message["type"] == "updated" and message["fingerprint"] != shown
        await behind.disconnect()

    run_async(scenario)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("message", ["[" * 1500 + "]" * 1500, "not json"])
def test_a_message_sent_to_the_board_socket_is_ignored_and_the_socket_stays_open(message):
    # The board only listens: what a client sends (a deeply nested or broken JSON text too) is not decoded.
    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/boards/7/", headers=ORIGIN)
        assert (await socket.connect())[0]
        await socket.send_to(text_data=message)
        await get_channel_layer().group_send(board_group(7), {"type": "board.updated", "submission": 42})
        assert (await socket.receive_json_from(timeout=2))["submission"] == 42
        await socket.disconnect()

    run_async(scenario)
