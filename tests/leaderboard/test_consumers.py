"""The board websocket: a score landing on a split reaches the pages listening to that split's board."""
import asyncio

from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from scoring.events import board_group

ORIGIN = [(b"origin", b"http://127.0.0.1")]


def test_board_socket_receives_updates_for_its_split_only():
    async def scenario():
        listening = WebsocketCommunicator(application, "/ws/boards/7/", headers=ORIGIN)
        other = WebsocketCommunicator(application, "/ws/boards/8/", headers=ORIGIN)
        assert (await listening.connect())[0] and (await other.connect())[0]
        await get_channel_layer().group_send(board_group(7), {"type": "board.updated", "submission": 42})
        assert await listening.receive_json_from(timeout=2) == {"type": "updated", "submission": 42}
        assert await other.receive_nothing(timeout=0.3)
        await listening.disconnect()
        await other.disconnect()

    asyncio.run(scenario())
