from django.apps import AppConfig


class DevicelabConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "devicelab"
    verbose_name = "Device lab (VGE devices from photos)"
