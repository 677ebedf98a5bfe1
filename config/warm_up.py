"""The served process's garbage collector (config.asgi): what the first requests leave behind, frozen once."""
from __future__ import annotations

import gc

WARM_UP_REQUESTS = 100  # HTTP requests served before what they left behind is frozen (`frozen_after_warm_up`)


def frozen_after_warm_up(app, requests: int = WARM_UP_REQUESTS):
    """`app`, freezing once what lives after its first `requests` HTTP requests (as config.asgi freezes what importing
    made). Those requests load what lives as long as the process too: the templates compiled, the benchmarks' page code
    (SciPy's statistics for PLAN's analyses), the cache's client, the boards' kept rows and views. Left unfrozen, a
    full collection walked them every few seconds: 10-90 ms inside one request on the 100x hub (issue 34,
    perf/hub_scale.py), where a board page takes 50-80. Once per process, after the response was sent; an object
    frozen is still freed when nothing refers to it, and what was cyclic garbage at that moment stays (bounded:
    once)."""
    served = 0

    async def application(scope, receive, send):
        nonlocal served
        await app(scope, receive, send)
        if scope["type"] == "http":
            served += 1
            if served == requests:
                gc.collect()
                gc.freeze()

    return application
