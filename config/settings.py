"""Settings, read from the environment.

With nothing set the site runs on embedded defaults: SQLite under var/, a Celery broker on the local
filesystem, the in-memory channel layer. DATABASE_URL, CELERY_BROKER_URL and REDIS_URL switch each part
to a real service.
"""
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from scoring import benchmarks  # the registry: pure, imports nothing of Django
from scoring.isolation import static_file_headers  # imports nothing of Django

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    """An integer; unset or empty is the default, anything else that is not a whole number stops the start."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def env_bool(name: str, default: bool = False) -> bool:
    """A switch: 1/0, true/false, yes/no, on/off (any case); unset or empty is the default. Anything else (a typo
    such as "ture") stops the start rather than quietly reading as off."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a switch: use one of 1/0, true/false, yes/no, on/off")


def env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value) if value else default


VAR_DIR = env_path("EBH_VAR_DIR", BASE_DIR / "var")
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "embedded-default-secret-key-change-me-in-production-0123456789")
ALLOWED_HOSTS = [h for h in env_str("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in env_str("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",  # runserver only (and Channels' test tooling imports it); both set-ups serve with uvicorn
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served from our static files, never a CDN
    "channels",
    "accounts",
    "scoring",
    # the benchmark packages with Django pieces of their own (models, admin pages, checks, commands): the registry
    # is pure, so the settings may read it
    *(plugin.django_app for plugin in benchmarks.plugins() if plugin.django_app),
    "leaderboard",
    "annotation",
    "simulator",
    "notifications",
    "evaluations",
    "devicelab",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.reject_nul_bytes",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "scoring.error_pages.RefusalPageMiddleware",  # a refusal an HTML view lets out: the error page, its status
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.roles",
                "config.context_processors.benchmark_nav",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------------
SQLITE_PATH = VAR_DIR / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{SQLITE_PATH}"),
        # Kept open between requests and websocket messages: opening one per message tripled the play round trip.
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file (not :memory:) so that a worker process started by a test sees the test database too.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update({"timeout": 30, "transaction_mode": "IMMEDIATE"})
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
# PostgreSQL behind an ASGI server: Django runs each request's database work in a thread of its own, so persistent
# connections pile up, one per thread (200 concurrent agents opened 200 connections and exhausted the server). The
# production profile's web processes set DB_POOL_MAX_SIZE instead: a psycopg pool of at most that many connections
# per process, each borrowed for a request and given back at its end (requests beyond it wait, up to 10 s).
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 0)
# Agent API requests handled at once per web process; more wait in the event loop (simulator/asgi.py).
AGENT_API_CONCURRENCY = env_int("AGENT_API_CONCURRENCY", 4)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections; Django must not
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": DB_POOL_MAX_SIZE, "timeout": 10,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- files ----------------------------------------------------------------------------------------
MEDIA_ROOT = env_path("MEDIA_ROOT", VAR_DIR / "media")
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_ADD_HEADERS_FUNCTION = static_file_headers  # the editor is cross-origin isolated (scoring.isolation)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
SUBMISSION_MAX_BYTES = env_int("SUBMISSION_MAX_BYTES", 512 * 1024 * 1024)
# The anonymous format pre-check runs in the web process: it reads files up to this size (larger ones are uploaded
# and checked by the worker). A file is never read past its split's line bound either (scoring.core.jsonl).
PRECHECK_MAX_BYTES = env_int("PRECHECK_MAX_BYTES", 64 * 1024 * 1024)
# Shapes of untrusted JSON and text, checked before decoding (scoring.core.bounded; docs/reliability.md): the longest
# line of an uploaded file (and item of a JSON array file), and the deepest nesting of any JSON value read.
SUBMISSION_MAX_LINE_BYTES = env_int("SUBMISSION_MAX_LINE_BYTES", 4 * 1024 * 1024)
SUBMISSION_MAX_JSON_DEPTH = env_int("SUBMISSION_MAX_JSON_DEPTH", 64)
PUBLISHED_DATA_DIR = env_path("PUBLISHED_DATA_DIR", BASE_DIR / "data" / "published")

# --- auth -----------------------------------------------------------------------------------------
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- API ------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.CachedTokenAuthentication",  # DRF's token auth, its user cached (accounts/auth.py)
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's three, JSON's with a depth check first (a deep nest is a 400, not a RecursionError)
    "DEFAULT_PARSER_CLASSES": ["scoring.parsers.BoundedJSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every API error in one shape: a service's refusal and DRF's own errors (scoring/api_errors.py)
    "EXCEPTION_HANDLER": "scoring.api_errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Embodied Bench Hub API",
    "DESCRIPTION": "Leaderboards, submissions, annotation and the VGE agent API.",
    "VERSION": "1.0.0",
    # Request bodies get their own components, so an upload's file is `format: binary` and read-only fields are
    # left out of what a client (or the schema fuzz run) is asked to send.
    "COMPONENT_SPLIT_REQUEST": True,
    # The API docs load nothing from outside the site (many intranets cannot reach a CDN): the pinned sidecar's
    # Swagger UI and ReDoc, our favicon, no online validator.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": STATIC_URL + "favicon.svg",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # The webhook events, named once (an endpoint's events and a delivery's event share the choice set)
    "ENUM_NAME_OVERRIDES": {"WebhookEventEnum": "notifications.models.Event"},
    # The schema's description ends with the VGE agent API's quick start and action grammar (simulator/api_docs.py)
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "simulator.api_docs.schema_with_agent_api"],
}

# --- Celery ---------------------------------------------------------------------------------------
CELERY_BROKER_DIR = VAR_DIR / "celery-broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_DIR.mkdir(parents=True, exist_ok=True)
    (CELERY_BROKER_DIR / "processed").mkdir(exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR),
        "data_folder_out": str(CELERY_BROKER_DIR),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# How often beat sweeps for lost jobs (see SCORING_LEASE_SECONDS).
SCORING_SWEEP_SECONDS = env_int("SCORING_SWEEP_SECONDS", 60)
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-submissions": {
        "task": "scoring.tasks.requeue_stale_submissions", "schedule": float(SCORING_SWEEP_SECONDS),
    },
    "prune-quota-days": {"task": "scoring.tasks.prune_quota_days", "schedule": 24 * 3600.0},
    "prune-board-changes": {"task": "leaderboard.tasks.prune_board_changes", "schedule": 600.0},
    "requeue-rescore-items": {
        "task": "scoring.tasks.requeue_rescore_items", "schedule": float(SCORING_SWEEP_SECONDS),
    },
    "flag-overdue-submissions": {
        "task": "scoring.tasks.flag_overdue_submissions", "schedule": float(SCORING_SWEEP_SECONDS),
    },
    "resend-overdue-webhooks": {"task": "notifications.tasks.resend_overdue_webhooks", "schedule": 300.0},
    "requeue-stale-run-chunks": {
        "task": "evaluations.tasks.requeue_stale_chunks", "schedule": float(SCORING_SWEEP_SECONDS),
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# A running submission whose worker has not reported for this long is taken to be lost and is queued again.
SCORING_LEASE_SECONDS = env_int("SCORING_LEASE_SECONDS", 120)
# The hub's version every score's provenance states (docs/provenance.md): set it from `git describe` at build;
# empty: the version in the code (scoring.core.provenance.HUB_VERSION).
HUB_VERSION = env_str("EBH_HUB_VERSION", "")
# A worker that starts re-scores the benchmarks whose scorer version changed (the deploy's trigger; docs/rescoring.md).
RESCORE_ON_WORKER_START = env_bool("RESCORE_ON_WORKER_START", True)
# Queue health (/queue/): an upload still queued this long after it was sent is flagged on its page and its quota
# is given back (the site, not the file, kept it waiting). Each scoring worker writes a beat this often; one whose
# last beat is older than three beats is not counted alive.
QUEUE_STALE_AFTER_MINUTES = env_int("QUEUE_STALE_AFTER_MINUTES", 30)
WORKER_BEAT_SECONDS = env_int("WORKER_BEAT_SECONDS", 20)
# Benchmarks from outside scoring/benchmarks/, "module:PLUGIN,..." (a deployment's own; the tests' tiny ones).
EXTRA_BENCHMARKS = env_str("EXTRA_BENCHMARKS", "")

# --- Channels -------------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    # A socket waits for its messages with BZPOPMIN, which Redis holds for 5 s when nothing comes
    # (channels_redis RedisChannelLayer.brpop_timeout); redis-py 8 gives up on any read after 5 s by default
    # (socket_timeout), so every idle websocket died with a TimeoutError. Reads may take well over the blocking wait.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- annotation -----------------------------------------------------------------------------------
# SAM when a checkpoint is configured (vit_b / vit_l / vit_h), else the classical OpenCV segmenter.
SAM_CHECKPOINT = env_str("SAM_CHECKPOINT", "")
SAM_MODEL_TYPE = env_str("SAM_MODEL_TYPE", "vit_b")
SAM_DEVICE = env_str("SAM_DEVICE", "cpu")
SAM_DECODER_THREADS = env_int("SAM_DECODER_THREADS", 1)  # torch threads per click; 1 is fastest on a busy CPU
SAM_EMBEDDING_DIR = env_path("SAM_EMBEDDING_DIR", VAR_DIR / "embeddings")
# SAM's prompt encoder + mask decoder as ONNX (one file per checkpoint), run by the editor in the browser.
SAM_DECODER_DIR = env_path("SAM_DECODER_DIR", SAM_EMBEDDING_DIR / "decoders")
SAM_BROWSER_DECODER = env_bool("SAM_BROWSER_DECODER", True)
# Its heaviest products in 8-bit integers, its GELUs in tanh form (sam_onnx.export_decoder): one WebAssembly thread
# decodes a click in ~79 ms, not ~101 (Node, 2 cores).
SAM_DECODER_QUANTIZED = env_bool("SAM_DECODER_QUANTIZED", True)
SAM_MAX_IMAGE_PIXELS = env_int("SAM_MAX_IMAGE_PIXELS", 40_000_000)
SAM_UPLOAD_MAX_FILES = env_int("SAM_UPLOAD_MAX_FILES", 2000)
SAM_UPLOAD_MAX_BYTES = env_int("SAM_UPLOAD_MAX_BYTES", 1024 * 1024 * 1024)  # an upload, and all a zip unpacks to
SAM_UPLOAD_MAX_IMAGE_BYTES = env_int("SAM_UPLOAD_MAX_IMAGE_BYTES", 256 * 1024 * 1024)  # one image, or zip entry
# All the decoded pixels of one zip upload, read from the images' headers before any is decoded.
SAM_UPLOAD_MAX_TOTAL_PIXELS = env_int("SAM_UPLOAD_MAX_TOTAL_PIXELS", 250_000_000)
SAM_PREFETCH_ITEMS = env_int("SAM_PREFETCH_ITEMS", 3)
# A queue name sends embedding jobs to dedicated (e.g. GPU) workers: celery -A config worker -Q <name>.
SAM_EMBEDDING_QUEUE = env_str("SAM_EMBEDDING_QUEUE", "")
# Consensus (issue 32): a submitted mask whose IoU with a fresh proposal from its own prompts is below this is flagged
# for the reviewer. Percent, so the environment stays an integer (80 = IoU 0.8).
ANNOTATION_CONSENSUS_MIN_IOU = env_int("ANNOTATION_CONSENSUS_MIN_IOU_PERCENT", 80) / 100

# --- PLAN judge (OpenAI-compatible endpoint; unset: rule judge, then the human queue) ---------------
JUDGE_BASE_URL = os.environ.get("JUDGE_BASE_URL", "")
JUDGE_MODEL = os.environ.get("JUDGE_MODEL", "")
JUDGE_API_KEY = os.environ.get("JUDGE_API_KEY", "")
# A JSON file of judge prompts (e.g. the paper's exact wording; see docs/plan-scoring.md); unset: the built-in
# paraphrase.
PLAN_JUDGE_PROMPT_FILE = os.environ.get("PLAN_JUDGE_PROMPT_FILE", "")

# Evaluation runs (evaluations/, docs/hub-runs.md): hosts of endpoints on internal addresses a run may ask (comma-
# separated; link-local and metadata addresses never), where the worker reaches this hub's agent API for VGE runs.
EVALUATIONS_ENDPOINT_ALLOW = [h.strip() for h in os.environ.get("EVALUATIONS_ENDPOINT_ALLOW", "").split(",") if h.strip()]
EVALUATIONS_AGENT_API_URL = os.environ.get("EVALUATIONS_AGENT_API_URL", "http://127.0.0.1:8000")
EVALUATIONS_MAX_CONCURRENCY = env_int("EVALUATIONS_MAX_CONCURRENCY", 16)
EVALUATIONS_REQUEST_TIMEOUT = float(env_int("EVALUATIONS_REQUEST_TIMEOUT", 120))
# An endpoint slot is leased for a request's timeout and this margin: a killed worker's slot comes free after both.
EVALUATIONS_SLOT_LEASE_MARGIN = env_int("EVALUATIONS_SLOT_LEASE_MARGIN", 30)
# A worker playing a chunk of a run marks it alive every third of this; a chunk "running" without a sign for this
# long is a killed worker's, and another worker takes it over (resuming from the stored answers).
EVALUATIONS_LEASE_SECONDS = env_int("EVALUATIONS_LEASE_SECONDS", 60)
# A run's units are played in chunks of this many, one Celery task each (any worker takes any chunk).
EVALUATIONS_CHUNK_UNITS = env_int("EVALUATIONS_CHUNK_UNITS", 32)
# Runs a user (not a curator) may start per phase (per split for a split in no phase), whatever their state.
EVALUATIONS_RUNS_PER_PHASE = env_int("EVALUATIONS_RUNS_PER_PHASE", 10)

# --- caches ---------------------------------------------------------------------------------------
if REDIS_URL:
    # One Redis client per process, not one per request (config/cache.py).
    CACHES = {"default": {"BACKEND": "config.cache.SharedRedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

# --- accounts: sign-in throttling (django-axes) and mail --------------------------------------------
# Failed sign-ins (the login form, the admin's; the API token page is behind the login form) are counted per
# username and address together: locking a username alone would let anyone lock out anyone, an address alone a whole
# lab behind one NAT. Counted in the database (axes' database handler), so every web process sees the same count on
# both set-ups (the embedded default's cache is per process). A curator lifts a lock on /accounts/lockouts/.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last: it turns a locked-out sign-in into the lock-out page
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.views.sign_in_locked_out"
AXES_VERBOSE = False
# Mail (password reset): SMTP when EMAIL_HOST is set; else each mail is written to a file under var/mail/ (read it
# there: the reset link is in it), never an SMTP connection to a server that is not there.
EMAIL_HOST = env_str("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = VAR_DIR / "mail"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Embodied Bench Hub <noreply@localhost>")

# --- notifications: mail when a submission is scored or fails, signed webhooks (docs/notifications.md) --------
# Webhook URLs must be http(s) and never link-local or cloud metadata addresses; private and loopback addresses
# (127.0.0.1, 10.x, 192.168.x, fc00::/7) only when this is on: on by default (the embedded default runs on one
# machine, the tests' receiver is on 127.0.0.1); a public deployment sets WEBHOOK_ALLOW_PRIVATE=false.
# The site's address as mail and webhook bodies give it (links to a submission's page).
SITE_URL = env_str("SITE_URL", "http://localhost:8000").rstrip("/")
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", True)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10)
# Attempts per delivery (the first and its retries); the n-th retry waits WEBHOOK_BACKOFF_SECONDS * 2**(n-1),
# at most an hour.
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6)
WEBHOOK_BACKOFF_SECONDS = env_int("WEBHOOK_BACKOFF_SECONDS", 30)
WEBHOOK_ENDPOINTS_PER_USER = env_int("WEBHOOK_ENDPOINTS_PER_USER", 10)
