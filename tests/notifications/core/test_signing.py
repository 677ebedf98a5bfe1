"""Webhook signatures and backoff, pure."""
import hashlib
import hmac

from notifications.core.signing import backoff_seconds, new_secret, signature, signature_valid


def test_signature_is_githubs_form_over_the_raw_body():
    body = b'{"event":"scored"}'
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signature("s3cret", body) == expected


def test_a_changed_body_secret_or_header_does_not_verify():
    body = b'{"a":1}'
    header = signature("k", body)
    assert signature_valid("k", body, header)
    assert not signature_valid("k", b'{"a":2}', header)
    assert not signature_valid("other", body, header)
    assert not signature_valid("k", body, None)
    assert not signature_valid("k", body, header.replace("sha256=", "sha1="))


def test_secrets_are_long_and_new_each_time():
    first, second = new_secret(), new_secret()
    assert first != second and first.startswith("whsec_") and len(first) > 40


def test_backoff_doubles_up_to_the_cap():
    assert [backoff_seconds(n, base=30) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert backoff_seconds(20, base=30) == 3600
