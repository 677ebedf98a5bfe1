"""One error model: every API error, a service's refusal or DRF's own, answers in one JSON shape
({"detail", "field"?, "line"?, "errors"?}) with its status, whichever app's API refuses; the schema documents it
as the `Error` component. A refusal an HTML view lets out is the error page, with its status."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpRequest
from django.test import RequestFactory
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from scoring.error_pages import RefusalPageMiddleware
from scoring.errors import INVALID_REQUEST, ServiceRefusal
from scoring.models import Benchmark, Split

KEYS = {"detail", "field", "line", "errors"}


def upload(name: str = "p.txt", data: bytes = b"1\n") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


# (what, method, url, body, format, signed in, status, the keys beyond "detail", the detail or None: any text)
ROUTES = [
    # scoring: the submission API
    ("upload, anonymous", "post", "/api/submissions/", {"benchmark": "epic-bench"}, "multipart", False, 401, set(),
     None),
    ("upload, blank model", "post", "/api/submissions/", {"benchmark": "epic-bench", "model": "", "file": upload},
     "multipart", True, 400, {"errors"}, INVALID_REQUEST),
    ("upload, unknown benchmark", "post", "/api/submissions/",
     {"benchmark": "no-such-bench", "model": "m", "file": upload}, "multipart", True, 404, {"field"}, None),
    ("submission, unknown id", "get", "/api/submissions/999999/", None, "json", True, 404, set(), None),
    ("my submissions, anonymous", "get", "/api/submissions/mine/", None, "json", False, 401, set(), None),
    ("submissions, wrong method", "delete", "/api/submissions/mine/", None, "json", True, 405, set(), None),
    ("visibility, unknown submission", "patch", "/api/submissions/999999/", {"visibility": "x"}, "json", True, 404, set(),
     None),
    # leaderboard: the board API and the pre-check
    ("board, unknown benchmark", "get", "/api/leaderboards/no-such-bench/", None, "json", False, 404, set(), None),
    ("board, bad query", "get", "/api/leaderboards/epic-bench/?split=test&min_params=abc", None, "json", False,
     400, {"field"}, None),
    ("precheck, blank benchmark", "post", "/api/submissions/precheck/", {"benchmark": "", "file": upload},
     "multipart", False, 400, {"errors"}, INVALID_REQUEST),
    ("precheck, unknown benchmark", "post", "/api/submissions/precheck/",
     {"benchmark": "no-such-bench", "file": upload}, "multipart", False, 404, {"field"}, None),
    # annotation
    ("image upload, no file", "post", "/api/annotation/images/", {}, "multipart", True, 400, {"errors"},
     INVALID_REQUEST),
    ("image upload, unknown project", "post", "/api/annotation/images/", {"file": upload, "project": "nope"},
     "multipart", True, 400, {"field"}, "No project 'nope'."),
    ("item, unknown id", "put", "/api/annotation/items/999999/", {}, "json", True, 404, set(), None),
    ("image, anonymous", "get", "/api/annotation/images/1/file/", None, "json", False, 401, set(), None),
    # simulator: the agent API
    ("episode start, blank task", "post", "/api/vge/episodes/", {"task": ""}, "json", True, 400, {"errors"},
     INVALID_REQUEST),
    ("episode start, unknown task", "post", "/api/vge/episodes/", {"task": "no/such-task"}, "json", True, 404,
     set(), None),
    ("episode, unknown id", "get", "/api/vge/episodes/999999/", None, "json", True, 404, set(),
     "Unknown episode 999999."),
    ("view image, bad turn", "get", "/api/vge/episodes/999999/view.png?turn=x", None, "json", True, 400, set(),
     "turn must be an integer"),
    ("act batch, one episode twice", "post", "/api/vge/episodes/act/",
     {"actions": [{"episode": 1, "output": "a"}, {"episode": 1, "output": "b"}]}, "json", True, 400, {"errors"},
     INVALID_REQUEST),
    ("bundle, blank model", "post", "/api/vge/submissions/", {"model": ""}, "json", True, 400, {"errors"},
     INVALID_REQUEST),
    # no route at all
    ("unknown API path", "get", "/api/no-such-operation/", None, "json", False, 404, set(), None),
]


def assert_error_shape(body: object, *, keys: set[str], detail: str | None) -> None:
    assert isinstance(body, dict) and isinstance(body["detail"], str) and body["detail"], body
    assert set(body) & KEYS == {"detail", *keys}, body
    if detail is not None:
        assert body["detail"] == detail, body
    if "field" in body:
        assert isinstance(body["field"], str) and body["field"], body
    if "errors" in body:
        assert isinstance(body["errors"], dict) and body["errors"], body
        assert all(isinstance(v, (list, dict)) for v in body["errors"].values()), body


@pytest.mark.django_db
@pytest.mark.parametrize("what, method, url, body, format, signed_in, status, keys, detail", ROUTES,
                         ids=[r[0] for r in ROUTES])
def test_each_api_refuses_in_the_one_error_shape(user, what, method, url, body, format, signed_in, status, keys,
                                                 detail):
    Split.objects.get_or_create(benchmark=Benchmark.objects.get(slug="epic-bench"), name="test", version=1,
                                defaults={"is_default": True})
    client = APIClient()
    if signed_in:
        client.force_authenticate(user)
    if body is not None:
        body = {k: v() if callable(v) else v for k, v in body.items()}
        response = getattr(client, method)(url, body, format=format)
    else:
        response = getattr(client, method)(url)
    assert response.status_code == status, (what, response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    assert_error_shape(response.json(), keys=keys, detail=detail)


@pytest.mark.django_db
@pytest.mark.parametrize("content", ["{", "[" * 5000 + "]" * 5000], ids=["not JSON", "nested too deeply"])
def test_a_body_the_json_parser_refuses_is_a_400_in_the_one_shape(token_client, content):
    response = token_client.post("/api/vge/episodes/", content, content_type="application/json")
    assert response.status_code == 400
    assert_error_shape(response.json(), keys=set(), detail=None)
    assert response.json()["detail"].startswith("JSON parse error")


@pytest.mark.django_db
def test_an_unauthenticated_caller_is_told_how_to_authenticate(api_client):
    response = api_client.get("/api/vge/episodes/1/", HTTP_AUTHORIZATION="Token not-a-token")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert_error_shape(response.json(), keys=set(), detail="Invalid token.")


def test_a_refusal_names_its_field_and_line_only_when_it_has_them():
    assert ServiceRefusal("No.").body() == {"detail": "No."}
    assert ServiceRefusal("Bad line.", field="file", line=3).body() == {"detail": "Bad line.", "field": "file",
                                                                        "line": 3}
    assert ServiceRefusal("Stale.", status=409, field="version", extra={"version": 4}).body() == {
        "detail": "Stale.", "version": 4, "field": "version"}


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_schema_names_the_error_component_for_every_4xx_answer(schema):
    error = schema["components"]["schemas"]["Error"]
    assert set(error["properties"]) >= KEYS and error["required"] == ["detail"]
    answers = [(path, method, code, answer) for path, methods in schema["paths"].items()
               for method, operation in methods.items() for code, answer in operation["responses"].items()
               if 400 <= int(code) < 500]
    assert len(answers) > 50
    for path, method, code, answer in answers:
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, (
            method, path, code)


@pytest.mark.django_db
def test_a_refusal_an_html_view_lets_out_is_the_error_page_with_its_status(user):
    request: HttpRequest = RequestFactory().get("/somewhere/")
    request.user = user
    response = RefusalPageMiddleware(lambda r: None).process_exception(request, ServiceRefusal("Gone.", status=404))
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Not found</h1>" in page and "Gone." in page and "Back to the benchmarks" in page
    api = RefusalPageMiddleware(lambda r: None).process_exception(RequestFactory().get("/api/x/"),
                                                                   ServiceRefusal("No.", status=403))
    assert api.status_code == 403 and json.loads(api.content) == {"detail": "No."}
