#!/usr/bin/env bash
# Start a Celery worker (with its beat for the stale-job sweep) and the daphne ASGI server; stop both together.
set -euo pipefail
host="${1:-127.0.0.1}"
port="${2:-8000}"
cd "$(dirname "$0")/.."
mkdir -p var/log
.venv/bin/celery -A config worker --beat --pool=solo --loglevel=info -n "worker@%h" \
  --schedule var/celerybeat-schedule >var/log/worker.log 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null; wait $worker 2>/dev/null' EXIT INT TERM
echo "Embodied Bench Hub is at http://${host}:${port}/  (worker log: var/log/worker.log; Ctrl+C stops both)"
.venv/bin/daphne -b "$host" -p "$port" config.asgi:application
