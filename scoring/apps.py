from django.apps import AppConfig
from django.conf import settings


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        from scoring import benchmarks, tasks  # noqa: F401 - tasks registers the worker_ready hook
        from scoring.benchmarks.plan import checks  # noqa: F401 - registers the judge prompt file check

        benchmarks.register_targets(settings.EXTRA_BENCHMARKS)
