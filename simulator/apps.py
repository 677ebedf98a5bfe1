from django.apps import AppConfig


class SimulatorConfig(AppConfig):
    name = "simulator"
    verbose_name = "VGE simulator"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from scoring.benchmarks.vge import scorer
        from simulator import selectors

        scorer.device_source_set(lambda ids: selectors.device_definitions(ids=list(ids)))
