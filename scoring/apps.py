from django.apps import AppConfig
from django.conf import settings


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from scoring import benchmarks, tasks  # noqa: F401 - tasks registers the worker_ready hook
        from scoring.core import bounded

        benchmarks.register_targets(settings.EXTRA_BENCHMARKS)
        # The shapes every reader of untrusted JSON and text bounds (docs/reliability.md, "Bounded input shapes").
        bounded.set_bounds(bounded.Bounds(max_line_bytes=settings.SUBMISSION_MAX_LINE_BYTES,
                                          max_json_depth=settings.SUBMISSION_MAX_JSON_DEPTH))
