"""`text|inline_code`: a plain text whose `backquoted` parts are code, as HTML (everything else escaped). For texts
written once for Markdown pages (the API docs) and shown on HTML pages too (a benchmark's format page sections)."""
from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_CODE = re.compile(r"`([^`]+)`")


@register.filter
def inline_code(text: str) -> SafeString:
    parts = _CODE.split(str(text))  # even: plain text, odd: code
    return mark_safe("".join(f"<code>{escape(p)}</code>" if i % 2 else escape(p) for i, p in enumerate(parts)))
