"""Names of published models are reserved (issue 13, defect 13f): an upload may not create "GPT-4o" with another
thinking mode beside the paper's row, nor add to the paper's entry, unless a curator makes it."""
import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import ModelEntry, Submission
from scoring.roles import CURATOR
from tests.scoring.factories import SampleFactory, SplitFactory


@pytest.fixture
def published_gpt4o(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="test")
    SampleFactory(split=split, key="k0", position=0)
    entry = ModelEntry.objects.create(name="GPT-4o", slug="gpt-4o", thinking="no", kind="proprietary")
    Submission.objects.create(model_entry=entry, split=split, source=Submission.Source.REPORTED, status="scored")
    return entry


def upload(client, model, thinking=""):
    return client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": "test", "model": model,
                                             "thinking": thinking, "file": SimpleUploadedFile("p.txt", b"1\n")},
                       format="multipart")


@pytest.mark.django_db
@pytest.mark.parametrize("model, thinking", [("GPT-4o", "yes"), ("GPT-4o", ""), ("gpt-4o", "no"), ("GPT-4o", "no")])
def test_a_user_cannot_take_a_published_models_name(token_client, published_gpt4o, model, thinking):
    response = upload(token_client, model, thinking)
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["field"] == "model" and "'GPT-4o' is the name of a published model" in body["detail"]
    assert ModelEntry.objects.filter(name__iexact="gpt-4o").count() == 1
    assert not Submission.objects.filter(source=Submission.Source.UPLOAD).exists()


@pytest.mark.django_db
def test_a_curator_may_add_a_variant_of_a_published_model(token_client, user, published_gpt4o):
    user.groups.add(Group.objects.get_or_create(name=CURATOR)[0])
    assert upload(token_client, "GPT-4o", "yes").status_code == 201
    assert upload(token_client, "GPT-4o", "no").status_code == 201
    assert ModelEntry.objects.filter(name="GPT-4o").count() == 2


@pytest.mark.django_db
def test_an_ownerless_name_without_published_rows_is_not_reserved(token_client, published_gpt4o):
    ModelEntry.objects.create(name="Orphan-VLM", slug="orphan-vlm", thinking="no")
    assert upload(token_client, "Orphan-VLM", "yes").status_code == 201
    assert upload(token_client, "GPT-4o-mini-finetune").status_code == 201
