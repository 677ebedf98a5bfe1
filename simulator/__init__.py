"""simulator app."""
