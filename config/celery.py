"""The Celery app. Tasks acknowledge late and are rejected when their worker dies, so nothing is lost."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("ebh")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
