#!/usr/bin/env bash
# Start the Celery workers (scoring, with beat for the stale-job sweep; SAM image embeddings on their own queue,
# so a slow CPU embedding never holds up scoring) and the daphne ASGI server; stop all of them together.
set -euo pipefail
host="${1:-127.0.0.1}"
port="${2:-8000}"
cd "$(dirname "$0")/.."
mkdir -p var/log
export SAM_EMBEDDING_QUEUE="${SAM_EMBEDDING_QUEUE:-embeddings}"
.venv/bin/celery -A config worker --beat --pool=solo --loglevel=info -n "scoring@%h" \
  --schedule var/celerybeat-schedule >var/log/worker.log 2>&1 &
scoring=$!
.venv/bin/celery -A config worker --pool=solo --loglevel=info -n "embeddings@%h" -Q "$SAM_EMBEDDING_QUEUE" \
  >var/log/embeddings-worker.log 2>&1 &
embeddings=$!
trap 'kill $scoring $embeddings 2>/dev/null; wait $scoring $embeddings 2>/dev/null' EXIT INT TERM
echo "Embodied Bench Hub is at http://${host}:${port}/  (worker logs in var/log/; Ctrl+C stops everything)"
.venv/bin/daphne -b "$host" -p "$port" config.asgi:application
