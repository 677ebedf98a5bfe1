"""The VGE agent API's Python client: list the tasks you may play, start episodes, act, read an episode back, fetch
the view image, bundle finished episodes into a submission. httpx and the public API only, no Django, so a harness
imports it from a checkout of the hub (or copies this file):

    client = AgentClient("http://127.0.0.1:8000", token="...")
    obs = client.start("microwave-0007/t3")
    turn = client.act(obs["episode"], "Action: Press(coord=[730, 180], params=[0])")

`python -m simulator play --url URL --token KEY` plays one episode with a random clicker (a check that a harness
reaches the API). The quick start on /api/docs/ and on the VGE format page (scoring/benchmarks/vge/core/quickstart.py) plays a whole
episode with it; the calls and their bodies are documented there (the schema at /api/schema/).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from typing import Any

import httpx

from scoring.benchmarks.vge.core.demo_agents import random_action


class AgentApiError(Exception):
    """A refused call: the HTTP status and the API's error body (`detail`, and `field` or `errors` where they
    apply)."""

    def __init__(self, status: int, body: Any):
        self.status = status
        self.body = body
        detail = body.get("detail") if isinstance(body, dict) else None
        super().__init__(f"{status}: {detail or body}")


class AgentClient:
    def __init__(self, url: str, *, token: str, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.http = httpx.Client(base_url=url.rstrip("/"), headers={"Authorization": f"Token {token}"},
                                 timeout=timeout, transport=transport)

    def __enter__(self) -> "AgentClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def _json(self, response: httpx.Response) -> Any:
        try:
            body = response.json()
        except ValueError:
            body = {"detail": response.text[:500] or response.reason_phrase}
        if response.status_code >= 400:
            raise AgentApiError(response.status_code, body)
        return body

    def tasks(self, *, split: str = "", category: str = "", device: str = "", page_size: int = 100) -> Iterator[dict]:
        """Every task you may play (GET /api/vge/tasks/, page after page), optionally of one split, device category
        or device."""
        params: dict[str, Any] = {"page_size": page_size}
        params.update({k: v for k, v in (("split", split), ("category", category), ("device", device)) if v})
        url: str | None = "/api/vge/tasks/"
        while url:
            page = self._json(self.http.get(url, params=params))
            yield from page["results"]
            url, params = page["next"], {}  # `next` carries the query

    def start(self, task: str, **options: Any) -> dict:
        """A new episode (POST /api/vge/episodes/): `{episode, observation, ...observation}`. Options: lambda (use
        `**{"lambda": 3}`), perturbation, history, instruction."""
        return self._json(self.http.post("/api/vge/episodes/", json={"task": task, **options}))

    def act(self, episode: int, output: str) -> dict:
        """One turn (POST /api/vge/episodes/{id}/act/): `{feedback: {kind, text?, action, goal_reached},
        observation, done}`."""
        return self._json(self.http.post(f"/api/vge/episodes/{episode}/act/", json={"output": output}))

    def act_many(self, actions: dict[int, str]) -> list[dict]:
        """One turn in each of several episodes (POST /api/vge/episodes/act/): a result per episode, in order,
        each with its own `status`."""
        body = {"actions": [{"episode": e, "output": o} for e, o in actions.items()]}
        return self._json(self.http.post("/api/vge/episodes/act/", json=body))["results"]

    def episode(self, episode: int) -> dict:
        """The episode as you may see it (GET /api/vge/episodes/{id}/): options, observation, trace, and once it is
        over its metrics."""
        return self._json(self.http.get(f"/api/vge/episodes/{episode}/"))

    def view(self, episode: int, turn: int | None = None) -> bytes:
        """The PNG of the current view (or of the view after `turn`)."""
        params = {} if turn is None else {"turn": turn}
        response = self.http.get(f"/api/vge/episodes/{episode}/view.png", params=params)
        if response.status_code >= 400:
            self._json(response)
        return response.content

    def bundle(self, *, model: str, split: str = "", **options: Any) -> dict:
        """Your finished episodes on a split's tasks as a submission for `model` (POST /api/vge/submissions/):
        `{submission, status, url}`."""
        return self._json(self.http.post("/api/vge/submissions/", json={"model": model, "split": split, **options}))


def play_main(argv: list[str]) -> int:
    """`python -m simulator play --url URL --token KEY [--task ID] [--seed N]`: play one episode with the random
    clicker (scoring.benchmarks.vge.core.demo_agents.random_action), printing each turn and the metrics: a check that
    a harness reaches the agent API with its token. Exit status 0 once the episode is over, 1 if a call is refused."""
    parser = argparse.ArgumentParser(prog="python -m simulator play", description=play_main.__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="your API token (from /accounts/token/)")
    parser.add_argument("--task", default="", help="a task id (default: the first GET /api/vge/tasks/ lists)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    try:
        with AgentClient(args.url, token=args.token) as client:
            task = args.task or next(client.tasks(page_size=1))["id"]
            obs = client.start(task)
            print(f"episode {obs['episode']} on {task}: {obs['instruction']}")
            while not obs["done"]:
                turn = client.act(obs["episode"], random_action(rng))
                feedback, obs = turn["feedback"], turn["observation"]
                print(f"turn {obs['turn']}: {feedback['action']} -> {feedback['kind']}: {feedback.get('text', '')}")
            print(json.dumps(client.episode(obs["episode"])["metrics"]))
    except (AgentApiError, StopIteration, httpx.HTTPError) as exc:
        print(f"refused: {exc or 'no task to play'}", file=sys.stderr)
        return 1
    return 0
