from django.apps import AppConfig


class DevicelabConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "devicelab"
    verbose_name = "Device lab (VGE devices from photos)"

    def ready(self) -> None:
        from devicelab import selectors
        from simulator import playtests

        # who may reach a draft's play-test device (`lab-draft-<id>`) is the lab's rule: the simulator asks it
        playtests.playtest_rule_set(selectors.playtest_devices_for)
