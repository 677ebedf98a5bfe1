"""Agent API requests enter Django a few at a time per process; the others wait their turn and are all served."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from simulator.asgi import agent_admission


def run(paths: list[str], limit: int) -> tuple[int, list[str]]:
    inside, most, served = 0, 0, []

    async def app(scope, receive, send):
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0.01)
        inside -= 1
        served.append(scope["path"])

    wrapped = agent_admission(app, limit=limit)

    async def scenario():
        await asyncio.gather(*(wrapped({"type": "http", "path": p}, None, None) for p in paths))

    with ThreadPoolExecutor(1) as pool:  # a fresh loop: a browser test may have left one running in this thread
        pool.submit(asyncio.run, scenario()).result()
    return most, served


def test_agent_requests_enter_at_most_limit_at_once_and_all_are_served():
    paths = [f"/api/vge/episodes/{i}/act/" for i in range(40)]
    most, served = run(paths, limit=3)
    assert most == 3 and sorted(served) == sorted(paths)


def test_other_requests_are_not_held_back():
    paths = [f"/leaderboard/b{i}/" for i in range(20)]
    most, served = run(paths, limit=3)
    assert most == 20 and len(served) == 20
