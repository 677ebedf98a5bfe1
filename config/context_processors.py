"""Template context shared by every page."""
from django.http import HttpRequest

from accounts.roles import role_names


def roles(request: HttpRequest) -> dict:
    """The signed-in user's role groups (annotator, reviewer, curator), for navigation."""
    return {"roles": role_names(getattr(request, "user", None))}
