"""The agent API's quick start (issue 30: "the quick-start on /api/docs/ and the VGE format page plays one episode with
the documented client in under 20 lines"): read back from both pages of a live server (daphne, the site's ASGI
application with its fast path), the same code, under 20 lines, run as it stands in a fresh interpreter with only
EBH_URL and EBH_TOKEN set: it plays an episode to its end; and so does the client's `python -m simulator play`."""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from rest_framework.authtoken.models import Token

from scoring.benchmarks.vge.core.quickstart import QUICKSTART
from simulator.models import Episode

ROOT = Path(__file__).resolve().parents[2]


def quickstart_of_api_docs(server: str) -> str:
    schema = httpx.get(f"{server}/api/schema/?format=json", timeout=30).json()
    found = re.search(r"```python\n(.*?)```", schema["info"]["description"], re.S)
    assert found, "no python block in the schema's description"
    return found.group(1)


def quickstart_of_format_page(server: str) -> str:
    page = httpx.get(f"{server}/leaderboard/vge-bench/format/", timeout=30)
    assert page.status_code == 200
    found = re.search(r'<code id="format-quickstart-code">(.*?)</code>', page.text, re.S)
    assert found, "no quick start on the format page"
    return html.unescape(found.group(1))


@pytest.mark.django_db(transaction=True)
def test_the_quickstart_of_both_pages_plays_one_episode_to_its_end(asgi_server, tiny_split, user, tmp_path):
    key = Token.objects.create(user=user).key
    code = quickstart_of_api_docs(asgi_server)
    assert quickstart_of_format_page(asgi_server) == code == QUICKSTART
    assert len(code.strip().splitlines()) < 20
    script = tmp_path / "quickstart.py"
    script.write_text(code)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "EBH_URL": asgi_server, "EBH_TOKEN": key}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=180)
    assert run.returncode == 0, run.stderr
    episode = Episode.objects.get(owner=user)
    assert episode.finished and episode.kind == Episode.Kind.AGENT
    assert episode.steps.count() == episode.metrics["turns"] > 0
    assert "'SR'" in run.stdout  # the script prints the finished episode's metrics

    # the client's own check, `python -m simulator play`: a second episode, played to its end by a random clicker
    play = subprocess.run([sys.executable, "-m", "simulator", "play", "--url", asgi_server, "--token", key,
                           "--task", "tiny/t2"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert play.returncode == 0, play.stderr
    second = Episode.objects.filter(owner=user).exclude(pk=episode.pk).get()
    assert second.finished and second.task.task_id == "tiny/t2" and f"episode {second.pk} on tiny/t2" in play.stdout
    refused = subprocess.run([sys.executable, "-m", "simulator", "play", "--url", asgi_server, "--token", "0" * 40],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "401" in refused.stderr
