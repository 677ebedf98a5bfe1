"""A large anonymous multipart body costs the embedded web server (what `make run` serves, scripts/serve.sh) disk,
not memory: Django spools an upload over FILE_UPLOAD_MAX_MEMORY_SIZE to a temporary file, so the body of a request
that is then refused (no token, no CSRF cookie, a file over the pre-check's limit) never sits in the process.
daphne held each body about 12 times over (a 250 MB body: +3 GiB), uvicorn streams it (issue 26, 3)."""
from __future__ import annotations

import httpx
import pytest

from tests.faults.processes import EmbeddedSite, site_env, status_kib

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

MiB = 1024 * 1024
BODY_MIB = 100
GROWTH_LIMIT_MIB = 150  # the bound for a 100 MiB body; daphne grew about 1,200 MiB
BOUNDARY = "----ebh-large-body"
# The pre-check, the upload API without a token, the login form: each reads the whole body before refusing it.
ENDPOINTS = ("/api/submissions/precheck/", "/api/submissions/", "/accounts/login/")


def multipart_body(size: int):
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"benchmark\"\r\n\r\nepic-bench\r\n"
            f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"pred.jsonl\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    chunk = b"{}\n" * (MiB // 3)
    yield head
    for _ in range(size // len(chunk)):
        yield chunk
    yield tail


@pytest.fixture
def embedded_site(tmp_path):
    site = EmbeddedSite(site_env(EBH_VAR_DIR=str(tmp_path / "var")), tmp_path / "serve.log").start()
    yield site
    site.stop()
    print(f"--- serve.log ---\n{site.log_tail(1500)}")


def test_large_anonymous_bodies_do_not_grow_the_embedded_web_server(embedded_site):
    web = embedded_site.web_pid()
    assert httpx.get(f"{embedded_site.url}/healthz", timeout=30).status_code == 200
    baseline = status_kib(web, "VmHWM") / 1024
    growth = {}
    for path in ENDPOINTS:
        try:
            response = httpx.post(f"{embedded_site.url}{path}", content=multipart_body(BODY_MIB * MiB), timeout=300,
                                  headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
            status = response.status_code
        except httpx.HTTPError as exc:  # a server may answer and close before the whole body is sent
            status = type(exc).__name__
        growth[path] = (status, round(status_kib(web, "VmHWM") / 1024 - baseline, 1))
    print(f"web server {embedded_site.args}: peak RSS growth (MiB) per {BODY_MIB} MiB body: {growth}")
    assert all(isinstance(status, str) or status < 500 for status, _ in growth.values()), growth
    assert all(mib < GROWTH_LIMIT_MIB for _, mib in growth.values()), growth
