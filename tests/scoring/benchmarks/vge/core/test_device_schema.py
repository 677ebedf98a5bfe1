"""The shipped vge-device/1 JSON Schema is itself a valid draft 2020-12 schema, and load_device uses it."""
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scoring.benchmarks.vge.core import device

SCHEMA = Path(device.__file__).parent / "schemas" / "vge-device-1.schema.json"


def test_the_schema_file_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_a_shape_error_names_its_path():
    with pytest.raises(device.DeviceInvalid) as caught:
        device.load_device({"schema": "vge-device/1", "id": 5})
    assert any(p.path for p in caught.value.problems)
