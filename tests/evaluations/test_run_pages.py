"""Who sees and steers a run, and what a run may be started with: the endpoint's address (no link-local or
metadata address, internal ones only allow-listed), the protocol's options, a user's quota."""
from __future__ import annotations

import pytest
from django.test import Client

from evaluations import services
from evaluations.endpoints import endpoint_check
from evaluations.models import EvaluationRun
from scoring.errors import ServiceRefusal
from scoring.models import Phase
from tests.scoring.bench_splits import plan_split, vge_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(curator, settings):
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    return services.run_create(user=curator, split=plan_split(), model_name="m", base_url="http://127.0.0.1:9/v1",
                               api_key="sk-page-secret")


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_a_run_is_its_owners_and_curators(run, curator, user, django_user_model) -> None:
    pages = [f"/evaluations/{run.pk}/", f"/evaluations/{run.pk}/progress.json", f"/evaluations/{run.pk}/r1.jsonl"]
    assert all(client_for(curator).get(p).status_code == 200 for p in pages)
    assert all(client_for(user).get(p).status_code == 404 for p in pages)
    assert all(client_for(None).get(p).status_code == 302 for p in pages)
    assert client_for(user).post(f"/evaluations/{run.pk}/cancel/").status_code == 404
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.QUEUED
    page = client_for(curator).get(pages[0]).content.decode()
    assert "sk-page-secret" not in page and "127.0.0.1:9" in page and "Run card" in page
    assert client_for(curator).post(f"/evaluations/{run.pk}/pause/").status_code == 302
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.PAUSED
    assert client_for(curator).post(f"/evaluations/{run.pk}/cancel/").status_code == 302
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.CANCELLED and run.api_key_sealed == ""
    assert client_for(curator).get(f"/evaluations/{run.pk}/partial.jsonl").status_code == 200


@pytest.mark.parametrize("url, words", [
    ("http://169.254.169.254/v1", "link-local"),
    ("http://metadata.google.internal/v1", "metadata"),
    ("http://127.0.0.1:8000/v1", "internal address"),
    ("ftp://example.org/v1", "http(s)"),
    ("http://user:pw@example.org/v1", "API key in its own field"),
])
def test_endpoints_that_are_refused(url, words, settings) -> None:
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["169.254.169.254"]  # link-local stays refused even allow-listed
    with pytest.raises(ServiceRefusal, match=words) as caught:
        endpoint_check(url)
    assert caught.value.field == "base_url"


def test_allow_listed_internal_host_is_accepted(settings) -> None:
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    assert endpoint_check("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1"


def test_the_form_names_a_bad_option_and_a_user_is_held_to_the_quota(user, settings) -> None:
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    split = vge_split()
    response = client_for(user).post("/evaluations/new/", {
        "split": split.pk, "base_url": "http://127.0.0.1:9/v1", "model_name": "m", "options": '{"history": "lots"}',
        "k": 1, "seed": 0, "temperature": 0, "concurrency": 2})
    assert response.status_code == 400 and "history must be" in response.content.decode()
    split.phase = Phase.objects.create(benchmark=split.benchmark, name="Quota", slug="quota", daily_quota=1)
    split.save()  # the split's phase holds its quota
    with pytest.raises(ServiceRefusal, match="Daily quota") as caught:
        services.run_create(user=user, split=split, model_name="m", base_url="http://127.0.0.1:9/v1", k=2)
    assert caught.value.status == 429
    run = services.run_create(user=user, split=split, model_name="m", base_url="http://127.0.0.1:9/v1")
    assert client_for(user).get(f"/evaluations/{run.pk}/").status_code == 200
