"""Which webhook URLs the site will call: http or https only, with a host, and never an address that reaches the
machine's own cloud metadata or link-local network; private, loopback and other internal addresses only when the
site allows them (WEBHOOK_ALLOW_PRIVATE). The host's addresses are resolved by the caller and passed in."""
from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

# Never, whatever the setting: link-local (169.254.0.0/16 holds the cloud metadata address 169.254.169.254;
# fe80::/10), AWS's IPv6 metadata address, and what no one can be (unspecified, multicast, reserved).
NEVER = [ipaddress.ip_network(n) for n in ("169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "0.0.0.0/8",
                                             "::/128", "224.0.0.0/4", "ff00::/8", "240.0.0.0/4")]
MAX_URL_LENGTH = 2000


def url_parts_problem(url: str) -> str | None:
    """What is wrong with the URL's form, or None: scheme, host, length, credentials."""
    if len(url) > MAX_URL_LENGTH:
        return f"The URL is longer than {MAX_URL_LENGTH} characters."
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"The URL cannot be read: {exc}."
    if parts.scheme not in ("http", "https"):
        return f"Only http and https URLs are called, not {parts.scheme or 'a URL without a scheme'!r}."
    if not parts.hostname:
        return "The URL has no host."
    if parts.username or parts.password:
        return "Put no user name or password in the URL; the signature header proves who sent the call."
    if port == 0:
        return "The URL's port cannot be 0."
    return None


def address_problem(address: str, *, allow_private: bool) -> str | None:
    """Why the site will not call this IP address, or None."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if any(ip in network for network in NEVER if network.version == ip.version):
        return f"{ip} is a link-local, metadata or reserved address; webhooks never go there."
    if not allow_private and (ip.is_private or ip.is_loopback or not ip.is_global):
        return f"{ip} is a private or loopback address; this site only calls public addresses."
    return None


def addresses_problem(addresses: Iterable[str], *, allow_private: bool) -> str | None:
    """The first problem among all the addresses a host resolves to (each could be the one connected to)."""
    found = list(addresses)
    if not found:
        return "The URL's host has no address."
    for address in found:
        problem = address_problem(address, allow_private=allow_private)
        if problem:
            return problem
    return None
