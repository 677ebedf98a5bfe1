"""Names of published models are reserved (issue 13, defect 13f): an upload may not create "GPT-4o" with another
thinking mode beside the paper's row, nor add to the paper's entry, unless a curator makes it."""
import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.roles import CURATOR
from scoring.models import ModelEntry, Submission
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


# Issue 26, finding 9: look-alikes of a published name were each accepted as a new model.
LOOK_ALIKES = {
    "cyrillic o": "GPT-4\u043e",
    "non-breaking hyphen": "GPT\u20114o",
    "fullwidth": "\uff27\uff30\uff34\uff0d\uff14\uff4f",
    "zero for o, lower case": "gpt-40",
}
INVISIBLE = {
    "zero-width space": ("GPT-4o\u200b", "U+200B ZERO WIDTH SPACE at character 7"),
    "right-to-left override": ("\u202eo4-TPG", "U+202E RIGHT-TO-LEFT OVERRIDE at character 1"),
    "left-to-right mark": ("GPT-4o\u200e", "U+200E LEFT-TO-RIGHT MARK at character 7"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("model", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_a_look_alike_of_a_published_name_is_refused_on_the_api(token_client, published_gpt4o, model):
    response = upload(token_client, model)
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["field"] == "model" and "'GPT-4o' is the name of a published model" in body["detail"]
    assert ModelEntry.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("model, where", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_name_with_invisible_characters_is_refused_saying_which_and_where(token_client, published_gpt4o, model,
                                                                          where):
    response = upload(token_client, model)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == "model" and where in body["detail"] and "invisible" in body["detail"]
    assert ModelEntry.objects.count() == 1


@pytest.mark.django_db
def test_a_look_alike_is_refused_on_the_upload_form(client, user, published_gpt4o):
    client.force_login(user)
    response = client.post("/submissions/new/", {"split": published_gpt4o.submissions.get().split_id,
                                        "model_name": "GPT-4\u043e", "file": SimpleUploadedFile("p.txt", b"1\n")})
    assert response.status_code == 403
    assert "is the name of a published model" in response.content.decode()
    assert ModelEntry.objects.count() == 1


@pytest.mark.django_db
def test_a_curator_may_still_use_a_look_alike(token_client, user, published_gpt4o):
    user.groups.add(Group.objects.get_or_create(name=CURATOR)[0])
    assert upload(token_client, "GPT\u20114o").status_code == 201


@pytest.mark.django_db
def test_a_name_unlike_any_published_one_is_accepted(token_client, published_gpt4o):
    assert upload(token_client, "GPT-4o (our lab)").status_code == 201
    assert upload(token_client, "\u00c9cole-VLM").status_code == 201
