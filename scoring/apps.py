from django.apps import AppConfig
from django.conf import settings


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from scoring import benchmarks, tasks  # noqa: F401 - tasks registers the worker_ready hook

        benchmarks.register_targets(settings.EXTRA_BENCHMARKS)
