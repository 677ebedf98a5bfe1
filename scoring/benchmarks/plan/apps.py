"""PLAN-Bench's Django pieces as an app of their own (listed in INSTALLED_APPS from the registry): Django loads its
judge records (models.py, app label "scoring"), its admin pages and its start-up check, and finds its management
commands."""
from django.apps import AppConfig


class PlanBenchConfig(AppConfig):
    name = "scoring.benchmarks.plan"
    label = "plan_bench"
    verbose_name = "PLAN-Bench"

    def ready(self) -> None:
        from scoring.benchmarks.plan import checks  # noqa: F401 - registers the judge prompt file check
