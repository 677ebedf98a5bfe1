"""A real Celery worker process computes the embedding the segment API asked for (202 -> ready -> 200)."""
from __future__ import annotations

import uuid

import pytest
from django.conf import settings

from annotation.services.projects import images_upload, items_assign
from tests.faults.processes import Worker, site_env, wait_for

from .conftest import client_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_process_computes_the_embedding_and_clicks_are_answered(tmp_path, curator, annotator, project_factory,
                                                                      scene_png):
    project = project_factory()
    [item] = images_upload(user=curator, name="scene.png", data=scene_png[0], project=project).items
    items_assign(user=curator, items=[item], assignee=annotator)
    image = item.images.get()
    client = client_for(annotator)
    url = f"/api/annotation/images/{image.pk}/segment/"
    prompt = {"points": [[192, 180, 1]], "multimask": True}

    env = site_env(SAM_EMBEDDING_DIR=str(settings.SAM_EMBEDDING_DIR), SAM_CHECKPOINT="")
    worker = Worker(f"embed-{uuid.uuid4().hex[:6]}@localhost", env, tmp_path / "worker.log")
    worker.purge()
    first = client.post(url, prompt, format="json")
    assert first.status_code == 202
    worker.start()
    try:
        wait_for(lambda: client.get(first.json()["status_url"]).json()["status"] == "ready", timeout=120,
                 what="the worker to compute the embedding")
        second = client.post(url, prompt, format="json")
    finally:
        worker.end()
        print((tmp_path / "worker.log").read_text(errors="replace")[-3000:])
    assert second.status_code == 200, second.json()
    assert second.json()["backend"] == "classic" and second.json()["masks"]
