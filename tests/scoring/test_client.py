"""`python -m scoring.client submit`: upload with a token, wait for the score, report problems, exit codes.

The client talks HTTP to the real Django application (httpx's WSGI transport), so the API, the database and
the scoring pipeline (Celery eager) are all real.
"""
import io

import httpx
import pytest
from django.core.wsgi import get_wsgi_application
from rest_framework.authtoken.models import Token

from scoring.client import main
from tests.scoring.factories import SampleFactory, SplitFactory


@pytest.fixture
def site(dummy_benchmark, settings, user, celery_eager):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="dev")
    for i in range(2):
        SampleFactory(split=split, key=f"k{i}", position=i, task="t")
    return {"token": Token.objects.create(user=user).key, "transport": httpx.WSGITransport(app=get_wsgi_application())}


def run(site, tmp_path, body: bytes, *extra: str, token: str | None = None) -> tuple[int, str]:
    path = tmp_path / "pred.txt"
    path.write_bytes(body)
    out = io.StringIO()
    code = main(["submit", "--url", "http://testserver", "--token", token or site["token"], "--benchmark",
                 "dummy-bench", "--split", "dev", "--model", "Client-VLM", "--interval", "0", "--timeout", "60", *extra, str(path)],
                transport=site["transport"], out=out)
    return code, out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_submit_uploads_and_waits_for_the_score(site, tmp_path):
    code, output = run(site, tmp_path, b"1\n0\n")
    assert code == 0, output
    assert "uploaded as submission #" in output and '"status": "scored"' in output and '"overall": 50.0' in output


@pytest.mark.django_db(transaction=True)
def test_a_bad_file_fails_with_line_and_field(site, tmp_path):
    code, output = run(site, tmp_path, b"1\nabc\n")
    assert code == 1
    assert "line 2, field value: 'abc' is not a number" in output


@pytest.mark.django_db(transaction=True)
def test_a_bad_token_is_refused_clearly(site, tmp_path):
    code, output = run(site, tmp_path, b"1\n", token="not-a-token")
    assert code == 1 and "upload refused (401)" in output


def test_missing_file_and_bad_arguments_exit_2(tmp_path):
    out = io.StringIO()
    assert main(["submit", "--url", "http://x", "--token", "t", "--benchmark", "b", "--model", "m",
                 str(tmp_path / "none.jsonl")], out=out) == 2
    assert "no such file" in out.getvalue()
    assert main(["submit"], out=out) == 2
