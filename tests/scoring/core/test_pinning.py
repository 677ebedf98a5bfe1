"""A request pinned to a checked address keeps the URL's host for the server: Host header, TLS server name."""
from scoring.core.pinning import pinned


def test_a_pinned_url_asks_the_address_under_the_urls_host():
    found = pinned("https://models.example.org:8443/v1/chat/completions?x=1", "203.0.113.7")
    assert found.url == "https://203.0.113.7:8443/v1/chat/completions?x=1"
    assert found.headers == {"Host": "models.example.org:8443"}
    assert found.extensions == {"sni_hostname": "models.example.org"}


def test_an_ipv6_address_is_bracketed_and_plain_http_has_no_server_name():
    found = pinned("http://hooks.example.org/ebh", "2001:db8::1")
    assert found.url == "http://[2001:db8::1]/ebh"
    assert found.headers == {"Host": "hooks.example.org"} and found.extensions == {}


def test_no_address_leaves_the_url_as_it_is():
    assert pinned("https://models.example.org/v1", "").url == "https://models.example.org/v1"
    assert pinned("https://models.example.org/v1", "").headers == {}
