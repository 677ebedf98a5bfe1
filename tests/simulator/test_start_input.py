"""A start request's hot path (serializers.plain_start_input): a body naming only its task is validated without
building EpisodeCreateInput, to the very data the serializer gives; anything else is left to the serializer."""
from __future__ import annotations

import pytest

from simulator.serializers import TASK_ID_MAX, EpisodeCreateInput, plain_start_input

PLAIN = [{"task": "microwave-0007/t3"}, {"task": "x"}, {"task": "é" * TASK_ID_MAX}, {"task": "a b"}]
LEFT_TO_THE_SERIALIZER = [
    {"task": " microwave-0007/t3"}, {"task": "microwave-0007/t3\n"}, {"task": ""}, {"task": "   "},
    {"task": "x" * (TASK_ID_MAX + 1)}, {"task": "a\x00b"}, {"task": "a\ud800"}, {"task": 7}, {"task": None},
    {"task": True}, {"task": ["x"]}, {"task": "x", "history": 3}, {"task": "x", "lambda": 2}, {"task": "x", "id": 1},
    {}, {"output": "x"}, ["task"], "task", None,
]


@pytest.mark.parametrize("body", PLAIN)
def test_a_body_naming_only_its_task_gets_the_serializers_own_validated_data(body):
    serializer = EpisodeCreateInput(data=body)
    assert serializer.is_valid(), serializer.errors
    assert plain_start_input(body) == dict(serializer.validated_data)


@pytest.mark.parametrize("body", LEFT_TO_THE_SERIALIZER)
def test_anything_else_is_left_to_the_serializer(body):
    assert plain_start_input(body) is None


def test_a_caller_changing_its_data_changes_no_later_start():
    first = plain_start_input({"task": "a"})
    assert first is not None
    first["history"] = "changed"
    serializer = EpisodeCreateInput(data={"task": "b"})
    assert serializer.is_valid()
    assert plain_start_input({"task": "b"}) == dict(serializer.validated_data)
