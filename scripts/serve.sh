#!/usr/bin/env bash
# Start the Celery workers (scoring; SAM image embeddings on their own queue, so a slow CPU embedding never holds up
# scoring), beat (the stale-job sweep) and the daphne ASGI server; stop all of them together.
# Beat is a process of its own, not `worker --beat`: a worker killed with SIGKILL would leave that beat child running.
set -euo pipefail
host="${1:-127.0.0.1}"
port="${2:-8000}"
cd "$(dirname "$0")/.."
mkdir -p var/log
export SAM_EMBEDDING_QUEUE="${SAM_EMBEDDING_QUEUE:-embeddings}"
.venv/bin/celery -A config worker --pool=solo --loglevel=info -n "scoring@%h" >var/log/worker.log 2>&1 &
scoring=$!
.venv/bin/celery -A config worker --pool=solo --loglevel=info -n "embeddings@%h" -Q "$SAM_EMBEDDING_QUEUE" \
  >var/log/embeddings-worker.log 2>&1 &
embeddings=$!
.venv/bin/celery -A config beat --loglevel=info --schedule var/celerybeat-schedule >var/log/beat.log 2>&1 &
beat=$!
trap 'kill $scoring $embeddings $beat 2>/dev/null || true; wait $scoring $embeddings $beat 2>/dev/null' EXIT INT TERM
echo "Embodied Bench Hub is at http://${host}:${port}/  (worker logs in var/log/; Ctrl+C stops everything)"
.venv/bin/daphne -b "$host" -p "$port" config.asgi:application
