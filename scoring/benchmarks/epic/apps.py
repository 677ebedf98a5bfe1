"""EPIC-Bench's Django pieces as an app of their own (listed in INSTALLED_APPS from the registry), so Django finds
its management commands (import_epic, make_demo_epic)."""
from django.apps import AppConfig


class EpicBenchConfig(AppConfig):
    name = "scoring.benchmarks.epic"
    label = "epic_bench"
    verbose_name = "EPIC-Bench"
