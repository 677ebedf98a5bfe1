from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notifications import services
        from scoring.events import score_landed, score_rescored, submission_failed

        # Scoring announces; notifications listen (nothing in scoring imports this app).
        score_landed.connect(services.on_score_landed, dispatch_uid="notify-scored")
        score_rescored.connect(services.on_score_rescored, dispatch_uid="notify-rescored")
        submission_failed.connect(services.on_submission_failed, dispatch_uid="notify-failed")
