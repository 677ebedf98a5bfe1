"""Each ASGI fast path answers exactly as its Django view: for a table of requests to every route a fast path serves
(good and bad parameters, anonymous and signed-in, a public and a hidden split), the answer of the fast path alone
(around an app that answers 599, so a decline shows) equals Django's (config.asgi.django_asgi_app, no fast path):
status, content type, the headers the middleware adds, body. Both through the ASGI applications themselves.

The routes come from the URLconf: `reverse()` by name here, the views' own routes in the fast paths
(scoring.asgi_http.ViewRoutes), so a route renamed in urls.py keeps this table and its fast path in step."""
from __future__ import annotations

import gc
import json

import pytest
from django.core.cache import cache
from django.db import connections
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.authtoken.models import Token

from config.asgi import django_asgi_app
from leaderboard import selectors as leaderboard_selectors
from leaderboard.asgi import FAST_READS, board_fast_path
from scoring.asgi_http import view_of
from simulator import api as simulator_api
from simulator.asgi import AGENT_PREFIX, FAST_ROUTES, agent_admission
from simulator.services.episodes import episode_start
from tests.leaderboard.conftest import epic_dev, epic_split, make_entry, make_reported  # noqa: F401 - fixtures
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER, tiny_split  # noqa: F401 - a fixture
from tests.websockets import asgi_request

pytestmark = pytest.mark.django_db(transaction=True)

# What Django's middleware adds that the fast path must add the same way, besides the content type.
COMPARED_HEADERS = (b"content-type", b"content-disposition", b"x-frame-options", b"x-content-type-options",
                    b"referrer-policy", b"cross-origin-opener-policy")
DECLINED = 599


@pytest.fixture(autouse=True)
def fresh_cache_and_closed_connections(monkeypatch):
    cache.clear()
    # The fast path's threads outlive a test: their connections close at each request's end.
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    yield
    gc.collect()  # and those of the request threads Django's ASGI handler ended, so the test database can be dropped


async def declined(scope, receive, send):
    """What stands for Django behind a fast path here: a 599, so a request the fast path passed on shows."""
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": DECLINED, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def call(app, method: str, url: str, headers=(), body: bytes = b"") -> tuple[int, dict, bytes]:
    return asgi_request(app, method, url, headers, body)


def compared(answer: tuple[int, dict, bytes]) -> tuple[int, dict, bytes]:
    status, headers, body = answer
    return status, {k.lower(): v for k, v in headers.items() if k.lower() in COMPARED_HEADERS}, body


def test_the_fast_paths_serve_routes_the_urlconf_has():
    """Every view a fast path answers for has a route (a route removed would leave a fast path serving nothing),
    and every route to the agent API's views lies under the admission's prefix."""
    found: dict = {}

    def walk(resolver: URLResolver, prefix: str) -> None:
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                found.setdefault(view_of(pattern.callback), []).append("/" + prefix + str(pattern.pattern))

    walk(get_resolver(), "")
    assert all(view in found for view in FAST_READS)
    assert all(view in found for view in FAST_ROUTES.views)
    agent_views = {v for v in found if getattr(v, "__module__", "") == simulator_api.__name__}
    assert agent_views >= FAST_ROUTES.views
    assert all(route.startswith(AGENT_PREFIX) for view in agent_views for route in found[view])


# --- boards: (url, signed in, accept header, answered by the fast path once the view has cached it) ---------------
BOARD_REQUESTS = [
    (reverse("board", args=["epic-bench"]), False, None, True),
    (reverse("board", args=["epic-bench"]) + "?kind=open-source", False, None, True),
    (reverse("board", args=["epic-bench"]) + "?split=dev", False, None, True),  # the public split
    (reverse("board", args=["epic-bench"]) + "?split=test", False, None, True),  # the hidden split's board
    (reverse("board", args=["epic-bench"]), True, None, False),  # signed in: the page is the reader's own
    (reverse("board", args=["epic-bench"]) + "?split=no-such", False, None, False),
    (reverse("board", args=["epic-bench"]) + "?sort=no-such-column", False, None, None),  # whatever the view does
    (reverse("board", args=["no-such-bench"]), False, None, False),
    (reverse("board-export", args=["epic-bench", "csv"]), False, None, True),
    (reverse("board-export", args=["epic-bench", "json"]) + "?split=dev", False, None, True),
    (reverse("board-export", args=["epic-bench", "csv"]), True, None, True),  # the same for every reader
    (reverse("board-export", args=["epic-bench", "xml"]), False, None, False),
    (reverse("api-leaderboard", args=["epic-bench"]), False, None, True),
    (reverse("api-leaderboard", args=["epic-bench"]) + "?split=test", True, b"application/json", True),
    (reverse("api-leaderboard", args=["epic-bench"]), False, b"text/html", False),  # a browser: DRF's page
    (reverse("api-leaderboard", args=["epic-bench"]) + "?split=no-such", False, None, False),
    (reverse("api-leaderboard", args=["no-such-bench"]), False, None, False),
]


def test_each_board_read_answers_as_its_view(epic_split, epic_dev, client, user, monkeypatch):
    # The data fingerprint is re-read once a second, and the fast path declines the first request that finds it
    # expired (stale-while-refresh: that one goes through the view). A view slower than that second (PostgreSQL on
    # a loaded machine) would make the fast path decline here for the refresh and not for what this test checks.
    monkeypatch.setattr(leaderboard_selectors, "FINGERPRINT_TIMEOUT", 60)
    make_reported(epic_split, make_entry("Hidden-VL"), 33.0)
    make_reported(epic_dev, make_entry("Open-VL"), 41.0)
    client.force_login(user)
    session = [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    fast_path = board_fast_path(declined)
    for url, signed_in, accept, fast in BOARD_REQUESTS:
        headers = [*(session if signed_in else ()), *([(b"accept", accept)] if accept else ())]
        django = call(django_asgi_app, "GET", url, headers)  # the view answers (and caches what it caches)
        assert django[0] != 500, url
        answer = call(fast_path, "GET", url, headers)
        if fast is False or (fast is None and answer[0] == DECLINED):
            assert answer[0] == DECLINED, (url, signed_in, accept)
            continue
        assert answer[0] != DECLINED, f"the fast path did not answer {url} (signed in: {signed_in})"
        assert compared(answer) == compared(django), url
        assert compared(call(django_asgi_app, "GET", url, headers)) == compared(django), url  # Django, again


# --- the agent API: starts and steps ------------------------------------------------------------------------------
def token_headers(user, content_type=b"application/json"):
    key = Token.objects.get_or_create(user=user)[0].key
    return [(b"authorization", f"Token {key}".encode()), (b"content-type", content_type)]


def same_ids(body: bytes, mine: int, theirs: int) -> bytes:
    """A body about episode `mine` written as about `theirs` (two twin episodes, one played by each side)."""
    return body.replace(f"/{mine}/".encode(), f"/{theirs}/".encode()).replace(
        f'"episode":{mine}'.encode(), f'"episode":{theirs}'.encode())


def test_each_agent_start_answers_as_its_view(tiny_split, user):
    start = reverse("api-vge-episode-create")
    fast_path = agent_admission(declined, limit=2)
    wrong_token = [(b"authorization", b"Token not-a-real-token"), (b"content-type", b"application/json")]
    requests = [  # (body, headers, played by the fast path)
        (b'{"task": "tiny/t1"}', token_headers(user), True),
        (b'{"task": "tiny/t1", "perturbation": "blur:2"}', token_headers(user), True),
        (b'{"task": "no/such"}', token_headers(user), True),
        (b'{"task": "tiny/t1", "perturbation": "blur:x"}', token_headers(user), True),
        (b'{"task": "tiny/t1"}', wrong_token, True),
        (b'["tiny/t1"]', token_headers(user), False),
        (b"task=tiny%2Ft1", token_headers(user, b"application/x-www-form-urlencoded"), False),
        (b'{"task": "tiny/t1"}', [(b"content-type", b"application/json")], False),  # anonymous
    ]
    for body, headers, fast in requests:
        django = compared(call(django_asgi_app, "POST", start, headers, body))
        answer = compared(call(fast_path, "POST", start, headers, body))
        if not fast:
            assert answer[0] == DECLINED, body
            continue
        if django[0] == 201:
            mine, theirs = json.loads(answer[2])["episode"], json.loads(django[2])["episode"]
            answer = (*answer[:2], same_ids(answer[2], mine, theirs))
        assert answer == django, body


def test_each_agent_step_answers_as_its_view(tiny_split, user, other_user):
    fast_path = agent_admission(declined, limit=2)
    theirs, _ = episode_start(user=other_user, task_id="tiny/t1")
    wrong_token = [(b"authorization", b"Token not-a-real-token"), (b"content-type", b"application/json")]
    twins = [episode_start(user=user, task_id="tiny/t1")[0] for _ in range(2)]  # Django's, the fast path's
    plain = [json.dumps({"output": output}).encode() for output in (OPEN_DASH, "no action here", PRESS_POWER)]
    # (episode ids for Django and the fast path, body, headers, played by the fast path)
    requests = [
        *(((twins[0].pk, twins[1].pk), body, token_headers(user), True) for body in plain),
        ((theirs.pk, theirs.pk), plain[0], token_headers(user), True),  # someone else's episode
        ((987654, 987654), plain[0], token_headers(user), True),  # no such episode
        ((theirs.pk, theirs.pk), plain[0], wrong_token, True),
        ((twins[0].pk, twins[1].pk), b'{"output": 12}', token_headers(user), False),  # the serializer coerces it
        ((twins[0].pk, twins[1].pk), b'{"output": "a\\u0000b"}', token_headers(user), False),  # and words this
        ((twins[0].pk, twins[1].pk), plain[0], [(b"content-type", b"application/json")], False),  # anonymous
        ((10**18, 10**18), plain[0], token_headers(user), False),  # past 18 digits: the view, as ever
    ]
    for (drf_id, fast_id), body, headers, fast in requests:
        django = compared(call(django_asgi_app, "POST", reverse("api-vge-episode-act", args=[drf_id]), headers, body))
        answer = compared(call(fast_path, "POST", reverse("api-vge-episode-act", args=[fast_id]), headers, body))
        if not fast:
            assert answer[0] == DECLINED, body
            continue
        assert (*answer[:2], same_ids(answer[2], fast_id, drf_id)) == django, body
