"""Webhook signatures: `sha256=<hex>` of HMAC-SHA256 over the raw body with the endpoint's secret, as GitHub's
X-Hub-Signature-256; compared in constant time."""
from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "sha256="


def signature(secret: str, body: bytes) -> str:
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_valid(secret: str, body: bytes, header: str | None) -> bool:
    return bool(header) and hmac.compare_digest(signature(secret, body), header or "")


def new_secret() -> str:
    """32 random bytes, URL-safe text: the secret shown once when an endpoint is made (or its secret replaced)."""
    return "whsec_" + secrets.token_urlsafe(32)


def backoff_seconds(retry: int, *, base: float, cap: float = 3600.0) -> float:
    """The wait before retry number `retry` (1, 2, ...): base, 2 base, 4 base, ..., at most `cap`."""
    return min(cap, base * 2 ** max(0, retry - 1))
