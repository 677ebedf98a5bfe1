from django.apps import AppConfig
from django.conf import settings


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save
        from rest_framework.authtoken.models import Token

        from scoring import auth, benchmarks, tasks  # noqa: F401 - tasks registers the worker_ready hook
        from scoring.core import bounded

        benchmarks.register_targets(settings.EXTRA_BENCHMARKS)
        # The shapes every reader of untrusted JSON and text bounds (docs/reliability.md, "Bounded input shapes").
        bounded.set_bounds(bounded.Bounds(max_line_bytes=settings.SUBMISSION_MAX_LINE_BYTES,
                                          max_json_depth=settings.SUBMISSION_MAX_JSON_DEPTH))
        # A cached API token is forgotten as soon as it is deleted or its user changes.
        post_delete.connect(auth.token_cache_forget_token, sender=Token, dispatch_uid="token-cache-token-deleted")
        post_save.connect(auth.token_cache_forget_token, sender=Token, dispatch_uid="token-cache-token-saved")
        post_save.connect(auth.token_cache_forget_user, sender=get_user_model(), dispatch_uid="token-cache-user")
