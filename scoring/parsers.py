"""The API's JSON parser: DRF's, after the depth check of scoring.core.bounded, so that a deeply nested body is a 400
saying so instead of a RecursionError (a 500). Every JSON API view uses it (REST_FRAMEWORK's default parsers)."""
from __future__ import annotations

import io

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from scoring.core.bounded import depth_error


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = stream.read()
        error = depth_error(data)
        if error:
            raise ParseError(f"JSON parse error - {error}")
        return super().parse(io.BytesIO(data), media_type, parser_context)
