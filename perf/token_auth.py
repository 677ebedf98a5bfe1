"""What the API token check costs per request: the cache hit as it was (no query), the check now (cache hit plus one
query of the token's user's access flags, compiled once), the same query built by the ORM each time, and DRF's
uncached authentication. Prints the median and the best of R runs of N calls each (the best is the least disturbed
by other load on the machine).

Runs on a throw-away SQLite database (its own var folder), or on DATABASE_URL's database when it is set (it adds one
user and token there).

Usage: .venv/bin/python perf/token_auth.py [--calls 200] [--runs 30]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    os.environ.update(EBH_VAR_DIR=tempfile.mkdtemp(prefix="token-auth-"), DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.authentication import TokenAuthentication
    from rest_framework.authtoken.models import Token

    from accounts.auth import ACCESS_FLAGS, CachedTokenAuthentication, token_cache_key

    call_command("migrate", verbosity=0)
    User.objects.filter(username="perf-token-auth").delete()
    key = Token.objects.create(user=User.objects.create_user("perf-token-auth")).key
    checked = CachedTokenAuthentication()
    checked.authenticate_credentials(key)  # fills the cache
    variants = {
        "before: cache hit, no query": lambda: cache.get(token_cache_key(key)),
        "now: cache hit + flags query": lambda: checked.authenticate_credentials(key),
        "flags query built by the ORM each time": (
            lambda: Token.objects.filter(key=key).values_list(*ACCESS_FLAGS).first()),
        "DRF, no cache": lambda: TokenAuthentication().authenticate_credentials(key),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, call in variants.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                call()
            times[name].append((time.perf_counter() - start) / args.calls * 1e6)
    for name, values in times.items():
        median, best = statistics.median(values), min(values)
        print(f"{connection.vendor:10} {name:40} median {median:7.1f} us  best {best:7.1f} us")
    User.objects.filter(username="perf-token-auth").delete()


if __name__ == "__main__":
    main()
