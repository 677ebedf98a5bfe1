"""Each URL prefix is routed by one app: the first segment of every route (the first two under api/) comes from one
app's urls.py, whichever app's views it reaches, so a reader looks for `/submissions/...` in one place."""
from django.urls import URLPattern, URLResolver, get_resolver


def owner(pattern) -> str:
    """The app whose URL module mounts a top-level entry of the URLconf (config for config.urls' own routes)."""
    if not isinstance(pattern, URLResolver):
        return "config"
    conf = pattern.urlconf_name
    if isinstance(conf, str):
        return conf.split(".")[0]
    if isinstance(conf, list | tuple):  # included as a list: the admin's
        return pattern.app_name or "config"
    return conf.__name__.split(".")[0]


def routes(pattern, prefix: str = "") -> list[str]:
    text = prefix + str(pattern.pattern)
    if isinstance(pattern, URLPattern):
        return [text]
    return [route for child in pattern.url_patterns for route in routes(child, text)]


def url_prefix(route: str) -> str:
    segments = route.lstrip("^").split("/")
    return "/".join(segments[:2]) if segments[0] == "api" and len(segments) > 2 else segments[0]


def test_each_url_prefix_is_routed_by_one_app():
    owners: dict[str, set[str]] = {}
    for pattern in get_resolver().url_patterns:
        for route in routes(pattern):
            owners.setdefault(url_prefix(route), set()).add(owner(pattern))
    assert owners["submissions"] == {"leaderboard"} and owners["accounts"] == {"accounts"}
    assert {p: o for p, o in owners.items() if len(o) > 1} == {}
