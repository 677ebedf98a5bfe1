"""/api/schema/ (what /api/docs/ and /api/redoc/ render) for the VGE agent API (issue 30: "Agent developers get nothing
from /api/docs/ for the VGE endpoints: empty descriptions for creating an episode and acting, `output` undocumented,
no list of the seven actions and their params"). Every route of the agent API, taken from the URLconf so that a new
one cannot go undocumented, has a summary, a description and examples that fit its serializers; the grammar comes
from the core's one table."""
from __future__ import annotations

import html
import re

import pytest
from django.urls import URLPattern, get_resolver
from rest_framework.test import APIClient

from scoring.benchmarks.vge.core import grammar
from scoring.benchmarks.vge.core.quickstart import QUICKSTART
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def agent_routes() -> list[str]:
    """The agent API's routes as the schema names them (`<int:pk>` -> `{id}`)."""
    out = []

    def walk(patterns, prefix=""):
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLPattern):
                if route.startswith("api/vge/"):
                    out.append("/" + re.sub(r"<int:pk>", "{id}", route))
            else:
                walk(p.url_patterns, route)

    walk(get_resolver().url_patterns)
    return out


def operations(schema) -> list[tuple[str, str, dict]]:
    return [(path, method, schema["paths"][path][method]) for path in agent_routes()
            for method in METHODS if method in schema["paths"].get(path, {})]


def resolve(schema, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def fits(schema, value, node: dict, where: str) -> None:
    """An example value holds only the fields its schema declares, recursively, and every required one."""
    node = resolve(schema, node)
    if "allOf" in node:
        node = resolve(schema, node["allOf"][0])
    if isinstance(value, dict) and "properties" in node:
        assert set(value) <= set(node["properties"]), (where, set(value) - set(node["properties"]))
        assert set(node.get("required", ())) <= set(value), (where, set(node.get("required", ())) - set(value))
        for key, item in value.items():
            fits(schema, item, node["properties"][key], f"{where}.{key}")
    elif isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            fits(schema, item, node["items"], f"{where}[{i}]")
    elif "enum" in node and value is not None:
        assert value in node["enum"], (where, value)


def test_every_agent_route_is_in_the_schema_with_a_summary_and_a_description(schema):
    routes = agent_routes()
    assert "/api/vge/tasks/" in routes and "/api/vge/episodes/{id}/act/" in routes and len(routes) >= 7
    for path in routes:
        assert path in schema["paths"], path
    for path, method, op in operations(schema):
        assert op.get("summary", "").strip(), (path, method)
        assert len(op.get("description", "").strip()) > 80, (path, method)
        assert "VGE agent API" in op["tags"], (path, method)


def test_every_agent_operation_has_examples_that_fit_its_serializers(schema):
    for path, method, op in operations(schema):
        if path.endswith("view.png"):
            continue  # a PNG
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert body.get("examples"), (path, method, "request")
            for name, example in body["examples"].items():
                fits(schema, example["value"], body["schema"], f"{path} {name}")
        ok = next(status for status in op["responses"] if status.startswith("2"))
        assert op["responses"][ok]["content"]["application/json"].get("examples"), (path, method, "response")
        for status, response in op["responses"].items():  # the refusals' examples too: the one Error shape
            answer = response["content"]["application/json"]
            for name, example in answer.get("examples", {}).items():
                fits(schema, example["value"], answer["schema"], f"{path} {status} {name}")


def test_the_refusal_examples_are_what_the_api_answers(schema, token_client, other_user, tiny_split):
    def example(path, method, status):
        examples = schema["paths"][path][method]["responses"][status]["content"]["application/json"]["examples"]
        [value] = [e["value"] for e in examples.values()]
        return value

    start = "/api/vge/episodes/"
    bad = token_client.post(start, {"task": "tiny/t1", "lambda": 11}, format="json")
    assert bad.status_code == 400 and bad.json() == example(start, "post", "400")
    missing = token_client.post(start, {"task": "microwave-9999/t1"}, format="json")
    assert missing.status_code == 404 and missing.json() == example(start, "post", "404")
    episode = token_client.post(start, {"task": "tiny/t1"}, format="json").json()["episode"]
    act = f"/api/vge/episodes/{episode}/act/"
    for output in (OPEN_DASH, PRESS_POWER):
        token_client.post(act, {"output": output}, format="json")
    over = token_client.post(act, {"output": PRESS_POWER}, format="json")
    assert over.status_code == 409 and over.json() == example("/api/vge/episodes/{id}/act/", "post", "409")
    token_client.force_authenticate(other_user)
    theirs = token_client.get(f"/api/vge/episodes/{episode}/")
    assert theirs.status_code == 403 and theirs.json() == example("/api/vge/episodes/{id}/", "get", "403")


def test_output_and_feedback_are_documented_with_the_grammar(schema):
    components = schema["components"]["schemas"]
    output = components["ActInputRequest"]["properties"]["output"]["description"]
    for spec in grammar.ACTIONS:
        assert spec.signature() in output
        for param in spec.params:
            assert param.values_text() in output, (spec.name, param.name)
    assert "Rotate(coord=[x, y], params=[direction, detents])" in output and "4 out" in output
    feedback = components["FeedbackOutput"]
    kind = feedback["properties"]["kind"]
    assert resolve(schema, kind["allOf"][0])["enum"] == list(grammar.KIND_NAMES)
    for name, meaning in grammar.FEEDBACK_KINDS:
        assert f"`{name}` - {meaning}" in kind["description"]
    assert "text" not in feedback.get("required", []) and "sentence" in feedback["properties"]["text"]["description"]
    observation = components["ObservationOutput"]["properties"]
    for field in ("image_url", "instruction", "budgets", "accessible_views", "done"):
        assert observation[field].get("description"), field


def test_the_act_operation_and_the_schemas_description_hold_the_grammar_table_and_the_quickstart(schema):
    act = schema["paths"]["/api/vge/episodes/{id}/act/"]["post"]["description"]
    info = schema["info"]["description"]
    assert grammar.grammar_markdown() in act and grammar.grammar_markdown() in info
    assert f"```python\n{QUICKSTART}```" in info
    for spec in grammar.ACTIONS:
        assert spec.example in act


def test_the_api_docs_page_serves_the_schema(client):
    page = client.get("/api/docs/")
    assert page.status_code == 200 and b"/api/schema/" in page.content


def test_the_vge_format_page_shows_the_grammar_the_kinds_and_the_quickstart(client, tiny_split):
    page = client.get("/leaderboard/vge-bench/format/").content.decode()
    actions = page[page.index('id="format-actions"'):page.index('id="format-feedback"')]
    for spec in grammar.ACTIONS:
        assert html.escape(spec.signature()) in actions and html.escape(grammar.params_text(spec)) in actions
    assert "4 out" in actions and "0 clockwise, 1 counter-clockwise" in actions
    kinds = page[page.index('id="format-feedback"'):page.index('id="format-quickstart"')]
    for name, meaning in grammar.FEEDBACK_KINDS:
        assert f"<code>{name}</code>" in kinds and html.escape(meaning) in kinds
    assert html.escape(QUICKSTART) in page
