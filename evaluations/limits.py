"""Per-endpoint limits shared by every run and every worker: an endpoint (host and model) has numbered slots in the
database, and each HTTP request to it holds one while it is open (`EndpointGate`, the chat client's `gate`), so runs
on one endpoint, in any process, never have more open than the endpoint allows; its requests are spaced by one
`next_request_at` moved forward by a conditional update. Rows, not process state: it works the same on SQLite and
PostgreSQL, with the filesystem broker or Redis.

A run takes the slots numbered below its own concurrency (capped by `EVALUATIONS_MAX_CONCURRENCY` and a curator's
`Endpoint.concurrency`), so runs together never exceed the largest concurrency any of them may use; the pace is the
slowest rate among them. A slot is leased for the request's timeout and a margin (`EVALUATIONS_SLOT_LEASE_MARGIN`):
a killed worker's slots come free by themselves."""
from __future__ import annotations

import random
import threading
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from typing import Iterator
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from evaluations.models import Endpoint, EndpointSlot

# One writer at a time from this process's threads: SQLite takes one anyway, and a thread that finds its write lock
# taken sleeps in SQLite's busy handler (1, 2, 5 ... 100 ms) where it could have waited here for a fraction of that.
write_lock = threading.Lock()
FREE = datetime(2000, 1, 1, tzinfo=dt_timezone.utc)  # a free slot's `leased_until`
POLL_SECONDS = (0.005, 0.05)  # the wait between looks for a free slot: from, to (doubling)


def endpoint_key(base_url: str, model: str) -> str:
    return f"{urlsplit(base_url).netloc.lower()} {model}"[:460]


def endpoint_for(*, base_url: str, model: str) -> Endpoint:
    endpoint, _ = Endpoint.objects.get_or_create(key=endpoint_key(base_url, model))
    return endpoint


def effective_limits(endpoint: Endpoint, *, concurrency: int, rate_per_minute: int | None) -> tuple[int, int | None]:
    """(slots, requests a minute) a run may use on the endpoint: its own, within the site's and the endpoint's caps."""
    slots = max(1, min(concurrency, settings.EVALUATIONS_MAX_CONCURRENCY, endpoint.concurrency or concurrency))
    rates = [r for r in (rate_per_minute, endpoint.rate_per_minute) if r]
    return slots, min(rates) if rates else None


class EndpointGate:
    """One run's way onto its endpoint; call it around each HTTP request (`with gate(): ...`)."""

    def __init__(self, endpoint: Endpoint, *, slots: int, rate_per_minute: int | None, timeout: float):
        self.endpoint_id = endpoint.pk
        self.slots = slots
        self.interval = 60.0 / rate_per_minute if rate_per_minute else 0.0
        self.lease = timedelta(seconds=timeout + settings.EVALUATIONS_SLOT_LEASE_MARGIN)
        self.owner = uuid.uuid4().hex[:24]
        self.last = threading.local()  # the slot this thread held last: tried first, so a free one costs one update
        EndpointSlot.objects.bulk_create([EndpointSlot(endpoint_id=self.endpoint_id, number=n, leased_until=FREE)
                                          for n in range(slots)], ignore_conflicts=True)

    @contextmanager
    def __call__(self) -> Iterator[None]:
        slot = self.acquire()
        try:
            self.pace()
            yield
        finally:
            self.release(slot)

    def _take(self, number: int, holder: str) -> bool:
        with write_lock:
            now = timezone.now()
            return bool(EndpointSlot.objects.filter(endpoint_id=self.endpoint_id, number=number, leased_until__lt=now)
                        .update(holder=holder, leased_until=now + self.lease))

    def acquire(self) -> int:
        holder = f"{self.owner}:{threading.get_ident() % 10**12}"
        wait = POLL_SECONDS[0]
        last = getattr(self.last, "number", None)
        if last is not None and self._take(last, holder):
            return last
        while True:
            free = list(EndpointSlot.objects.filter(endpoint_id=self.endpoint_id, number__lt=self.slots,
                                                    leased_until__lt=timezone.now())
                        .values_list("number", flat=True))
            random.shuffle(free)  # threads looking at once would all try the same first
            for number in free:
                if self._take(number, holder):
                    self.last.number = number
                    return number
            time.sleep(wait * random.uniform(0.5, 1.0))
            wait = min(POLL_SECONDS[1], wait * 2)

    def release(self, number: int) -> None:
        holder = f"{self.owner}:{threading.get_ident() % 10**12}"
        with write_lock:
            EndpointSlot.objects.filter(endpoint_id=self.endpoint_id, number=number, holder=holder).update(
                holder="", leased_until=FREE)

    def pace(self) -> None:
        """Wait for this request's moment under the endpoint's rate, taken by a conditional update of the one
        `next_request_at` every run on the endpoint moves forward."""
        if not self.interval:
            return
        step = timedelta(seconds=self.interval)
        while True:
            seen = Endpoint.objects.filter(pk=self.endpoint_id).values_list("next_request_at", flat=True).get()
            now = timezone.now()
            at = max(now, seen) if seen else now
            with write_lock:
                moved = Endpoint.objects.filter(pk=self.endpoint_id, next_request_at=seen).update(
                    next_request_at=at + step)
            if moved:
                delay = (at - now).total_seconds()
                if delay > 0:
                    time.sleep(delay)
                return
