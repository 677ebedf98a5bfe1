"""With Redis as the cache, every cache object of a process (Django keeps one per thread and per asyncio task, so one
per ASGI request) shares one Redis client and its connection pool, instead of connecting anew per request."""
import threading
import uuid

import pytest
from django.conf import settings
from django.core.cache import caches

pytestmark = pytest.mark.integration


def test_cache_objects_of_one_process_share_one_redis_client():
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL (make test's integration run sets it)")
    assert settings.CACHES["default"]["BACKEND"] == "config.cache.SharedRedisCache"
    here = caches.create_connection("default")
    elsewhere = []
    thread = threading.Thread(target=lambda: elsewhere.append(caches.create_connection("default")))
    thread.start()
    thread.join()
    assert here is not elsewhere[0] and here._cache is elsewhere[0]._cache
    key = f"shared-cache-{uuid.uuid4().hex}"
    here.set(key, 42, 30)
    assert elsewhere[0].get(key) == 42
    connections = here._cache.get_client(key)  # redis-py client on the shared pool
    assert connections.connection_pool is elsewhere[0]._cache.get_client(key).connection_pool
    here.delete(key)
