"""API token authentication with the token's user cached, so a busy client (an agent harness stepping hundreds of
episodes) costs one small query per request, not DRF's load of the token and its user.

The cache is the site's cache (in-process on the embedded default, Redis when configured), keyed by a hash of the
token, never the token itself. It never outlives the rows it stands for: every request asks the database whether
the token still exists and what its user's access flags are now (one query on the token's primary key joined to the
user's), so a user deactivated, deleted or made staff by another process, a raw SQL update or `QuerySet.update()`
(none of which this process's signals hear) is seen by the next request. The cached user is loaded again when its
flags changed. The signals (`token_cache_forget_*`, connected in `AccountsConfig.ready()`) still drop an entry at
once when the token or its user changes in this process, or everywhere on a shared cache.
"""
from __future__ import annotations

import functools
import hashlib

from django.core.cache import cache
from django.db import connection
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

TOKEN_CACHE_SECONDS = 60
# What the cached user object must agree with the database on, read with every request.
ACCESS_FLAGS = ("user__is_active", "user__is_staff", "user__is_superuser")


@functools.cache
def _access_flags_sql() -> str:
    """The ORM's SQL for the check, compiled once: building the query each time cost ~25x running it (perf/ figures in
    docs/reliability.md)."""
    sql, _ = Token.objects.filter(key="").values_list(*ACCESS_FLAGS).query.sql_with_params()
    return sql


def token_access_flags(key: str) -> tuple[bool, bool, bool] | None:
    """The token's user's (is_active, is_staff, is_superuser) as stored now; None when there is no such token."""
    with connection.cursor() as cursor:
        cursor.execute(_access_flags_sql(), [key])
        row = cursor.fetchone()
    return None if row is None else (bool(row[0]), bool(row[1]), bool(row[2]))


def token_cache_key(key: str) -> str:
    return "api-token:" + hashlib.sha256(key.encode()).hexdigest()


class CachedTokenAuthentication(TokenAuthentication):
    """DRF's `Authorization: Token <key>`, with the same answers, checked against the database on every request."""

    def authenticate_credentials(self, key: str):
        flags = token_access_flags(key)
        if flags is None:
            raise exceptions.AuthenticationFailed("Invalid token.")  # deleted, replaced, or its user deleted
        if not flags[0]:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        cache_key = token_cache_key(key)
        found = cache.get(cache_key)
        if found is not None:
            user, token = found
            if (user.is_active, user.is_staff, user.is_superuser) == flags:
                return user, token
        user, token = super().authenticate_credentials(key)  # raises AuthenticationFailed as before
        cache.set(cache_key, (user, token), TOKEN_CACHE_SECONDS)
        return user, token


def token_cache_forget_token(sender, instance, **kwargs) -> None:
    cache.delete(token_cache_key(instance.key))


def token_cache_forget_user(sender, instance, **kwargs) -> None:
    keys = [token_cache_key(k) for k in Token.objects.filter(user_id=instance.pk).values_list("key", flat=True)]
    if keys:
        cache.delete_many(keys)
