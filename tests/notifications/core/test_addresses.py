"""Which webhook URLs and addresses the site calls."""
import pytest

from notifications.core.addresses import address_problem, addresses_problem, url_parts_problem


@pytest.mark.parametrize("url", ["ftp://example.org/x", "file:///etc/passwd", "example.org/hook", "gopher://x",
                                 "http://", "https://user:pw@example.org/", "http://example.org:0/"])
def test_urls_other_than_plain_http_or_https_are_refused(url):
    assert url_parts_problem(url)


def test_plain_http_and_https_urls_pass():
    assert url_parts_problem("https://hooks.example.org/ebh?x=1") is None
    assert url_parts_problem("http://127.0.0.1:8080/") is None


@pytest.mark.parametrize("address", ["169.254.169.254", "169.254.0.1", "fd00:ec2::254", "fe80::1", "0.0.0.0",
                                     "::ffff:169.254.169.254", "224.0.0.1"])
def test_metadata_and_link_local_addresses_are_refused_even_when_private_ones_are_allowed(address):
    assert address_problem(address, allow_private=True)


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "192.168.0.5", "172.16.0.1", "::1", "fd12::1",
                                     "100.64.0.1"])
def test_private_addresses_only_when_allowed(address):
    assert address_problem(address, allow_private=False)
    assert address_problem(address, allow_private=True) is None


def test_public_addresses_pass_and_one_bad_address_of_several_refuses():
    assert address_problem("93.184.216.34", allow_private=False) is None
    assert addresses_problem(["93.184.216.34", "169.254.169.254"], allow_private=True)
    assert addresses_problem([], allow_private=True)
