"""Which endpoint URLs a run may ask: http(s) only; never a link-local or cloud-metadata address (169.254.0.0/16,
fe80::/10, metadata.google.internal), even allow-listed; loopback, private and reserved addresses only when the host
is on the EVALUATIONS_ENDPOINT_ALLOW list (a deployment's own model servers). The host is resolved and every address
it resolves to is judged; a run connects to an address so judged (`endpoint_address`)."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from scoring.errors import ServiceRefusal

METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"})


def endpoint_check(url: str) -> str:
    """The URL, stripped of a trailing slash; ServiceRefusal naming the field `base_url` otherwise."""
    return endpoint_address(url)[0]


def endpoint_address(url: str) -> tuple[str, str]:
    """The URL (stripped of a trailing slash) and the address a run is to connect to: the first of those its host
    resolves to now, every one of them allowed; ServiceRefusal naming the field `base_url` otherwise. A run's chunks
    check again when they start and connect to that address (`OpenAIChatClient(address=...)`), not to the host's name
    resolved again: a name whose answer changes after the check (DNS rebinding) reaches no address it did not allow."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceRefusal("The endpoint must be an http(s) URL with a host, e.g. https://host/v1.", field="base_url")
    if parts.username or parts.password:
        raise ServiceRefusal("Give the API key in its own field, not in the URL.", field="base_url")
    host = parts.hostname.lower().rstrip(".")
    if host in METADATA_HOSTS:
        raise ServiceRefusal(f"{host} is a cloud metadata address: runs never ask it.", field="base_url")
    allowed = host in {h.lower() for h in settings.EVALUATIONS_ENDPOINT_ALLOW}
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise ServiceRefusal(f"The endpoint's host {host} does not resolve.", field="base_url") from None
    addresses = [str(info[4][0]).split("%")[0] for info in infos]
    for text in addresses:
        address = ipaddress.ip_address(text)
        if address.is_link_local or str(address) == "169.254.169.254" or (
                isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped and address.ipv4_mapped.is_link_local):
            raise ServiceRefusal(f"{host} resolves to the link-local address {address}: runs never ask it.",
                                 field="base_url")
        if not allowed and (address.is_loopback or address.is_private or address.is_reserved
                            or address.is_multicast or address.is_unspecified):
            raise ServiceRefusal(f"{host} resolves to {address}, an internal address; a curator may allow the host "
                                 "(EVALUATIONS_ENDPOINT_ALLOW).", field="base_url")
    if not addresses:
        raise ServiceRefusal(f"The endpoint's host {host} does not resolve.", field="base_url")
    return url.strip().rstrip("/"), addresses[0]
