"""API token authentication with the token's user cached, so a busy client (an agent harness stepping hundreds of
episodes) costs no authentication query per request.

The cache is the site's cache (in-process on the embedded default, Redis when configured, so shared by every web
process), keyed by a hash of the token, never the token itself. An entry lives `TOKEN_CACHE_SECONDS` at most and is
dropped at once when the token is deleted (also with its user) or replaced, or when its user is saved
(deactivated, made staff, ...):
see `token_cache_forget_*`, connected in `ScoringConfig.ready()`.
"""
from __future__ import annotations

import hashlib

from django.core.cache import cache
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

TOKEN_CACHE_SECONDS = 60


def token_cache_key(key: str) -> str:
    return "api-token:" + hashlib.sha256(key.encode()).hexdigest()


class CachedTokenAuthentication(TokenAuthentication):
    """DRF's `Authorization: Token <key>`, with the same answers, reading the database once per token a minute."""

    def authenticate_credentials(self, key: str):
        cache_key = token_cache_key(key)
        found = cache.get(cache_key)
        if found is None:
            user, token = super().authenticate_credentials(key)  # raises AuthenticationFailed as before
            cache.set(cache_key, (user, token), TOKEN_CACHE_SECONDS)
            return user, token
        user, token = found
        if not user.is_active:  # as the parent checks (a cached user saved inactive is forgotten anyway)
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, token


def token_cache_forget_token(sender, instance, **kwargs) -> None:
    cache.delete(token_cache_key(instance.key))


def token_cache_forget_user(sender, instance, **kwargs) -> None:
    keys = [token_cache_key(k) for k in Token.objects.filter(user_id=instance.pk).values_list("key", flat=True)]
    if keys:
        cache.delete_many(keys)
