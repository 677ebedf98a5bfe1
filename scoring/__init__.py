"""The shared scoring app. Its `core` package scores files without Django; `python -m scoring` is its CLI."""
