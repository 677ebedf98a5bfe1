"""Template context shared by every page."""
from django.http import HttpRequest


def roles(request: HttpRequest) -> dict:
    """The signed-in user's role groups (annotator, reviewer, curator), for navigation."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": frozenset()}
    names = set(user.groups.values_list("name", flat=True))
    if user.is_staff:
        names.add("curator")
    return {"roles": frozenset(names)}
