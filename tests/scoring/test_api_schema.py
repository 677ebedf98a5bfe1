"""The OpenAPI schema says what the server does (issue 13, defect 13a-d): nullable fields are nullable, text the
server refuses blank has minLength 1, and every error an operation answers is documented, in one shape."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

BLANK_REFUSED = [  # (request component, field): required text the server answers "" to with a 400
    ("SubmissionCreateInputRequest", "model"),
    ("PrecheckInputRequest", "benchmark"),
    ("EpisodeCreateInputRequest", "task"),
    ("BundleInputRequest", "model"),
]


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if operation["operationId"] != "schema_retrieve":  # drf-spectacular's own view
                yield path, method, operation


def test_schema_generates_and_validates_without_warnings_or_errors(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))


def test_submission_score_is_an_object_or_null(schema):
    components = schema["components"]["schemas"]
    score = components["SubmissionOutput"]["properties"]["score"]
    assert score["nullable"] is True and score["allOf"] == [{"$ref": "#/components/schemas/ScoreOutput"}]
    assert components["ScoreOutput"]["type"] == "object"
    assert components["ScoreOutput"]["properties"]["overall"]["nullable"] is True


@pytest.mark.parametrize("component", ["SubmissionCreateInputRequest", "PrecheckInputRequest",
                                       "ImageUploadInputRequest"])
def test_uploaded_files_are_binary_in_the_request_bodies(schema, component):
    # (COMPONENT_SPLIT_REQUEST: without it a request's file was a read-only URI string, which no client can send)
    file = schema["components"]["schemas"][component]["properties"]["file"]
    assert file["type"] == "string" and file["format"] == "binary"


def test_item_assignee_may_be_null(schema):
    assert schema["components"]["schemas"]["ItemOutput"]["properties"]["assignee"]["nullable"] is True


@pytest.mark.parametrize("component, field", BLANK_REFUSED)
def test_text_the_server_refuses_blank_has_min_length_one(schema, component, field):
    properties = schema["components"]["schemas"][component]
    assert field in properties["required"] and properties["properties"][field]["minLength"] == 1


@pytest.mark.django_db
@pytest.mark.parametrize("url, data, format", [
    ("/api/submissions/", {"benchmark": "b", "model": "", "file": b""}, "multipart"),
    ("/api/submissions/precheck/", {"benchmark": "", "file": b""}, "multipart"),
    ("/api/vge/episodes/", {"task": ""}, "json"),
    ("/api/vge/submissions/", {"model": ""}, "json"),
])
def test_the_server_does_refuse_those_blanks(token_client, url, data, format):
    data = {k: SimpleUploadedFile("p.txt", b"1\n") if k == "file" else v for k, v in data.items()}
    response = token_client.post(url, data, format=format)
    assert response.status_code == 400
    blank = next(k for k, v in data.items() if v == "")
    assert response.json()["errors"][blank] == ["This field may not be blank."]


def test_every_operation_documents_its_errors_in_the_one_error_shape(schema):
    for path, method, operation in operations(schema):
        errors = {code: answer for code, answer in operation["responses"].items() if int(code) >= 400}
        assert errors, f"{method.upper()} {path} documents no error"
        for answer in errors.values():
            assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert set(schema["paths"]["/api/submissions/"]["post"]["responses"]) == {
        "201", "400", "401", "403", "404", "409", "413", "429"}


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True])
def test_errors_the_server_answers_are_documented(schema, user, signed_in):
    # Given every operation called with unknown ids and an empty body, anonymously and with a token,
    client = APIClient()
    if signed_in:
        client.force_authenticate(user)
    for path, method, operation in operations(schema):
        url = path.replace("{id}", "999999").replace("{benchmark}", "no-such-bench")
        response = getattr(client, method)(url, {}, format="json" if method == "put" else "multipart")
        # then each answer is a documented one, and an error has the documented shape.
        assert str(response.status_code) in operation["responses"], (method, url, response.status_code)
        if response.status_code >= 400:
            assert isinstance(response.json()["detail"], str)
