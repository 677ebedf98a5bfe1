"""A device's object keys (views, components, states) come back in their authored order on PostgreSQL too: jsonb
sorts them, which listed the views of one device in another order than on SQLite and drew its components in
another order. Runs in the integration part of `make test`, on PostgreSQL."""
from __future__ import annotations

import copy

import pytest

from simulator.engines import engine_cache_clear, engine_for
from simulator.models import Device
from simulator.services.library import device_upsert
from tests.scoring.benchmarks.vge.core.conftest import TINY

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def reversed_keys(mapping: dict) -> dict:
    return {key: mapping[key] for key in reversed(list(mapping))}


def test_views_components_and_states_keep_their_authored_order():
    # Given a device whose views, components and states are written in an order no sort gives
    data = copy.deepcopy(TINY)
    for key in ("views", "components", "states"):
        data[key] = reversed_keys(data[key])
    device_upsert(data=data, source="test")

    # When it is read back from the database
    stored = Device.objects.get(device_id=data["id"]).definition

    # Then each mapping lists its keys as written, and the engine offers the views in that order
    for key in ("views", "components", "states"):
        assert list(stored[key]) == list(data[key]), key
    engine_cache_clear()
    engine = engine_for(Device.objects.get(device_id=data["id"]))
    assert list(engine.device.views) == list(data["views"])
    assert list(engine.device.components) == list(data["components"])
