from django.apps import AppConfig


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = "Evaluation runs (the hub runs a model)"
    default_auto_field = "django.db.models.BigAutoField"
