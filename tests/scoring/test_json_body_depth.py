"""A deeply nested JSON body to the API is the client's error (400 naming the limit), never a RecursionError 500."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

DEEP = "[" * 1500 + "]" * 1500  # 3 KB; Python's json would recurse 1500 deep


@pytest.mark.parametrize("path", ["/api/vge/episodes/", "/api/vge/submissions/"])
def test_a_deeply_nested_json_body_is_a_400(token_client, path):
    response = token_client.generic("POST", path, DEEP, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert "nested too deeply" in response.json()["detail"]


def test_a_json_body_nested_a_little_is_read(token_client):
    response = token_client.generic("POST", "/api/vge/episodes/", '{"task": "nope", "x": [[[1]]]}',
                                    content_type="application/json")
    assert response.status_code == 404  # read, and the task is unknown
