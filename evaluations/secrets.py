"""An endpoint's API key for the run's life: sealed with a key derived from the site's SECRET_KEY (Fernet) in the
run's row, so a worker in another process can read it; emptied when the run ends. Never logged or shown."""
from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    digest = hashlib.sha256(b"evaluations.api-key:" + settings.SECRET_KEY.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def seal(key: str) -> str:
    return _fernet().encrypt(key.encode()).decode() if key else ""


def unseal(sealed: str) -> str:
    if not sealed:
        return ""
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except InvalidToken:
        return ""
