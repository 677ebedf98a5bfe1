"""In Chromium: a hidden split's image is refused to an anonymous reader (404, no picture), and the pages that
show it (the curator's split page, the submitter's drill-down overlay) draw it for those allowed. Run against the
site's own ASGI process: pytest-django's live_server serves every file under MEDIA_ROOT itself, past the URLconf."""
from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.auth.models import Group

from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import Benchmark, Sample
from tests.conftest import login_page
from tests.leaderboard.test_hidden_ground_truth import upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NATURAL_WIDTH = "(sel) => { const i = document.querySelector(sel); return i && i.complete ? i.naturalWidth : -1; }"


def test_hidden_split_image_is_refused_to_anonymous_and_shown_to_the_allowed(asgi_server, page, tmp_path,
                                                                              django_user_model):
    # (a transactional test before this one may have flushed the benchmarks the migrations made)
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    samples = epic_demo.make_split(17, per_leaf=1)[:3]
    epic_demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name="secret-b", hidden=True)
    assert report.problems == []
    url = Sample.objects.filter(split=split).order_by("position").first().inputs["images"][0]["url"]
    assert url.startswith("/media/hidden/")

    response = page.goto(f"{asgi_server}{url}")
    assert response.status == 404
    page.set_content(f'<img id="i" src="{asgi_server}{url}">')
    page.wait_for_function("() => document.getElementById('i').complete")
    assert page.evaluate(NATURAL_WIDTH, "#i") == 0  # no picture

    curator = django_user_model.objects.create_user("cora", password="pw-cora-123")
    curator.groups.add(Group.objects.get_or_create(name="curator")[0])
    login_page(page, asgi_server, "cora", "pw-cora-123")
    page.goto(f"{asgi_server}/annotation/review/splits/{split.pk}/")
    selector = f'img[src="{url}"]'
    page.wait_for_function(f"() => {{ const i = document.querySelector('{selector}'); return i && i.complete; }}")
    assert page.evaluate(NATURAL_WIDTH, selector) > 0

    # The submitter's drill-down overlay draws on that image
    submitter = django_user_model.objects.create_user("sam", password="pw-sam-123")
    rng = np.random.default_rng(0)
    lines = [epic_demo.raw_line(s, epic_demo.noisy_response(s, rng), prefix="/anywhere/") for s in samples]
    submission = upload(submitter, split, "\n".join(json.dumps(x) for x in lines).encode(), name="Model-E",
                        options={"raw": True})
    page.context.clear_cookies()
    login_page(page, asgi_server, "sam", "pw-sam-123")
    assert page.goto(f"{asgi_server}{url}").status == 200
    page.goto(f"{asgi_server}/submissions/{submission.pk}/samples/")
    page.wait_for_function("() => { const i = document.querySelector('img.overlay'); return i && i.complete; }")
    assert page.evaluate(NATURAL_WIDTH, "img.overlay") > 0
