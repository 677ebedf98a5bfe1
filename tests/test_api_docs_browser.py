"""In a real Chromium with every request that leaves the machine blocked: the API docs (Swagger UI and ReDoc) render
from the site's own static files (drf-spectacular-sidecar, pinned), and the site has a favicon."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


@pytest.fixture
def offline_page(chromium):
    """A page whose requests to any host but this machine are aborted, and listed."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20000)
    blocked: list[str] = []

    def route(r):
        host = urlsplit(r.request.url).hostname or ""
        if r.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page.blocked = blocked
    yield page
    context.close()


@pytest.mark.browser
def test_swagger_ui_renders_with_no_external_request(asgi_server, offline_page):
    page = offline_page
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    response = page.goto(f"{asgi_server}/api/docs/")
    assert response.status == 200
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Embodied Bench Hub API" in page.locator(".swagger-ui .info .title").inner_text()
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() > 5
    assert "/api/submissions/" in page.locator(".swagger-ui").inner_text()
    assert page.blocked == [] and failed == []


@pytest.mark.browser
def test_redoc_renders_with_no_external_request(asgi_server, offline_page):
    page = offline_page
    response = page.goto(f"{asgi_server}/api/redoc/")
    assert response.status == 200
    # ReDoc's menu shows Redocly's logo from their CDN whatever its options say: the page's policy keeps it local.
    assert "img-src 'self' data:" in response.headers["content-security-policy"]
    page.wait_for_selector("#redoc-container h1, redoc h1")
    assert "Embodied Bench Hub API" in page.locator("h1").first.inner_text()
    assert "/api/submissions/" in page.content()
    assert page.blocked == []


@pytest.mark.browser
def test_the_site_has_a_favicon(asgi_server, offline_page):
    page = offline_page
    page.goto(f"{asgi_server}/")
    href = page.locator("link[rel=icon]").get_attribute("href")
    assert href.endswith("favicon.svg")
    icon = page.request.get(f"{asgi_server}{href}")
    assert icon.status == 200 and icon.body().startswith(b"<svg")
    assert page.request.get(f"{asgi_server}/favicon.ico", max_redirects=1).status == 200
    assert page.blocked == []


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_name_local_assets_only(client, path):
    """Without a browser: every script, style and icon the page names is on this site."""
    html = client.get(path).content.decode()
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls and all(u.startswith("/") for u in urls), urls
    assert "googleapis" not in html and "cdn." not in html
