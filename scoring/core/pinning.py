"""A request to an address checked beforehand, under the URL's own host: the site checks where a user's URL
resolves (webhooks, hub-run model endpoints) and connects to the address it allowed, not to the host's name resolved
again (a name whose answer changes after the check, DNS rebinding, reaches no address the check did not allow). Pure
(no Django, no I/O)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True)
class Pinned:
    """What httpx is given: the URL with the address in place of the host, the URL's host in the `Host` header, and
    in TLS's server name (`sni_hostname`, which the certificate is checked against too)."""

    url: str
    headers: dict[str, str]
    extensions: dict[str, Any]


def pinned(url: str, address: str) -> Pinned:
    """`url` asked at `address` (an IP address; "" asks the URL's host as it resolves)."""
    if not address:
        return Pinned(url, {}, {})
    parts = urlsplit(url)
    host = f"[{address}]" if ":" in address else address
    target = urlunsplit((parts.scheme, f"{host}:{parts.port}" if parts.port else host, parts.path, parts.query, ""))
    return Pinned(target, {"Host": parts.netloc},
                  {"sni_hostname": parts.hostname} if parts.scheme == "https" else {})
