"""Template context shared by every page."""
from django.http import HttpRequest

from accounts.roles import role_names
from scoring import benchmarks


def roles(request: HttpRequest) -> dict:
    """The signed-in user's role groups (annotator, reviewer, curator), for navigation."""
    return {"roles": role_names(getattr(request, "user", None))}


def benchmark_nav(request: HttpRequest) -> dict:
    """(slug, title) of every registered benchmark, for the navigation's board links."""
    return {"nav_benchmarks": [(plugin.slug, plugin.title) for plugin in benchmarks.plugins()]}
