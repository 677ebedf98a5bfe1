"""The one error the device lab's services raise: the site's refusal (a message, its HTTP status, the field)."""
from __future__ import annotations

from scoring.errors import ServiceRefusal


class DeviceLabError(ServiceRefusal):
    """A refusal of the device lab's services; `field` names the JSON path or the form field at fault."""
