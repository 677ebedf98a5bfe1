#!/usr/bin/env bash
# Start the Celery workers (scoring; SAM image embeddings on their own queue, so a slow CPU embedding never holds up
# scoring), beat (the stale-job sweep) and the ASGI server (one uvicorn process); stop all of them together.
# Beat is a process of its own, not `worker --beat`: a worker killed with SIGKILL would leave that beat child running.
#
# scripts/serve.sh --prod [HOST] [PORT]: the production profile instead (`make serve`): the programs of
# ./supervisord.conf (several uvicorn workers, scoring workers with concurrency, the embeddings worker, beat) run by
# supervisord in the foreground, each started again when it dies, on the services the environment names
# (DATABASE_URL, REDIS_URL, CELERY_BROKER_URL; all three required). Logs in $EBH_VAR_DIR/log. docs/deploy.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--prod" ]; then
  shift
  missing=""
  for var in DATABASE_URL REDIS_URL CELERY_BROKER_URL; do
    [ -n "${!var:-}" ] || missing="$missing $var"
  done
  if [ -n "$missing" ]; then
    echo "serve.sh --prod: set$missing (PostgreSQL, Redis for channels and cache, the Celery broker); see docs/deploy.md" >&2
    exit 2
  fi
  export HOST="${1:-127.0.0.1}" WEB_PORT="${2:-8000}" SAM_EMBEDDING_QUEUE="${SAM_EMBEDDING_QUEUE:-embeddings}" \
    WEB_WORKERS="${WEB_WORKERS:-4}" DB_POOL_MAX_SIZE="${DB_POOL_MAX_SIZE:-8}" \
    SCORING_CONCURRENCY="${SCORING_CONCURRENCY:-2}" EBH_VAR_DIR="$(realpath -m "${EBH_VAR_DIR:-var}")"
  mkdir -p "$EBH_VAR_DIR/log"
  echo "Embodied Bench Hub (production profile) is at http://${HOST}:${WEB_PORT}/  (logs in $EBH_VAR_DIR/log/;" \
    "Ctrl+C stops every process)"
  exec .venv/bin/supervisord -n -c supervisord.conf
fi
host="${1:-127.0.0.1}"
port="${2:-8000}"
var="${EBH_VAR_DIR:-var}"
mkdir -p "$var/log"
export SAM_EMBEDDING_QUEUE="${SAM_EMBEDDING_QUEUE:-embeddings}"
.venv/bin/celery -A config worker --pool=solo --loglevel=info -n "scoring@%h" >"$var/log/worker.log" 2>&1 &
scoring=$!
.venv/bin/celery -A config worker --pool=solo --loglevel=info -n "embeddings@%h" -Q "$SAM_EMBEDDING_QUEUE" \
  >"$var/log/embeddings-worker.log" 2>&1 &
embeddings=$!
.venv/bin/celery -A config beat --loglevel=info --schedule "$var/celerybeat-schedule" >"$var/log/beat.log" 2>&1 &
beat=$!
trap 'kill $scoring $embeddings $beat 2>/dev/null || true; wait $scoring $embeddings $beat 2>/dev/null' EXIT INT TERM
echo "Embodied Bench Hub is at http://${host}:${port}/  (worker logs in var/log/; Ctrl+C stops everything)"
# One uvicorn process, as the production profile's web program but a single worker: it streams request bodies
# (Django spools uploads to disk), where daphne held a multipart body about 12 times over in memory.
.venv/bin/uvicorn config.asgi:application --host "$host" --port "$port" --loop uvloop --http httptools \
  --ws websockets-sansio --no-access-log --timeout-graceful-shutdown 10
