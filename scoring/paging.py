"""The page of a long list that an HTML page's `?page=` asks for, the one rule for every such list (a user's
submissions, a submission's samples): 1 when absent, the last page when past it, a 400 refusal naming the parameter
when it is not a page number."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

from scoring.errors import ServiceRefusal


def page_requested(request: HttpRequest, items: Sequence[Any], per_page: int, *, count: int | None = None) -> Page:
    """The page of `items` (a query set: only the page's rows are read) asked for by `?page=`; `count`: the number of
    items when the caller has it already (no COUNT query of its own)."""
    paginator = Paginator(items, per_page)
    if count is not None:
        paginator.count = count
    raw = request.GET.get("page") or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ServiceRefusal(f"Bad parameter 'page': '{raw[:20]}' is not a page number.", field="page")
    return paginator.get_page(int(raw))
