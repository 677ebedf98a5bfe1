"""Notifications' pure parts: webhook signatures (HMAC-SHA256 over the raw body), the retry backoff and the check of
a webhook's address. No Django here; the clock and the resolved addresses are passed in."""
