"""Schema fuzzing: schemathesis (pinned) generates requests from /api/schema/ against the real server and checks
every answer: no 5xx, status codes, content types and bodies as the schema documents them. Bounded to 25
examples per operation, run anonymously, with a token and random ids, and with a token and ids of objects the
token's user really has (a submission, an annotation item and image, a VGE episode), so the fuzz reaches past
the 404 of an unknown id."""
from __future__ import annotations

import io
import re
import subprocess
import sys

import httpx
import pytest
from django.contrib.auth.models import Group
from PIL import Image as PILImage

from annotation.services.editing import item_images
from annotation.services.projects import images_upload, items_assign, project_create
from tests.faults.processes import ROOT
from tests.scoring.bench_splits import vge_split
from tests.scoring.upload_race import race_split

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

EXAMPLES_PER_OPERATION = 25
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


def owned_objects(url: str, token: str, user, django_user_model) -> dict[str, int | str]:
    """Objects of the token's user, made through the API where it can make them: their ids for the path
    parameters of the operations that take one."""
    auth = {"Authorization": f"Token {token}"}
    race_split(daily_quota=None)
    vge_split()
    submission = httpx.post(f"{url}/api/submissions/", headers=auth, data={"benchmark": "race-bench",
                            "split": "test", "model": "Fuzzed"}, files={"file": ("p.txt", b"1\n0\n1\n")})
    episode = httpx.post(f"{url}/api/vge/episodes/", headers=auth, json={"task": "tiny/t1"})
    assert submission.status_code == 201 and episode.status_code == 201, (submission.text, episode.text)

    curator = django_user_model.objects.create_user("curator-fuzz", password="pw-curator-fuzz")
    curator.groups.add(Group.objects.get_or_create(name="curator")[0])
    project = project_create(user=curator, name="Fuzz", slug="fuzz",
                             leaf="TargetLocalization/BasicAttributes/Color")
    png = io.BytesIO()
    PILImage.new("RGB", (64, 48), (120, 60, 30)).save(png, format="PNG")
    items = images_upload(user=curator, name="scene.png", data=png.getvalue(),
                          project=project).items
    user.groups.add(Group.objects.get_or_create(name="annotator")[0])
    items_assign(user=curator, items=items, assignee=user)
    image = item_images(items[0])[0]
    return {"submission": submission.json()["id"], "episode": episode.json()["episode"], "item": items[0].pk,
            "image": image.pk, "benchmark": "vge-bench"}


def config_with_ids(ids: dict[str, int | str]) -> str:
    """A schemathesis.toml that fixes each operation's path parameter to an object of the user's."""
    by_path = {"/api/submissions/{id}/": ids["submission"], "/api/vge/episodes/{id}/": ids["episode"],
               "/api/vge/episodes/{id}/act/": ids["episode"], "/api/vge/episodes/{id}/view.png": ids["episode"],
               "/api/annotation/items/{id}/": ids["item"], "/api/annotation/items/{id}/overlay/": ids["item"],
               "/api/annotation/items/{id}/submit/": ids["item"],
               "/api/annotation/images/{id}/embedding/": ids["image"],
               "/api/annotation/images/{id}/file/": ids["image"], "/api/annotation/images/{id}/segment/": ids["image"]}
    blocks = [f'[[operations]]\ninclude-path = "{path}"\nparameters = {{ "path.id" = {value} }}\n'
              for path, value in by_path.items()]
    blocks.append('[[operations]]\ninclude-path = "/api/leaderboards/{benchmark}/"\n'
                  f'parameters = {{ "path.benchmark" = "{ids["benchmark"]}" }}\n')
    return "\n".join(blocks)


def fuzz(url: str, *, token: str | None = None, config=None) -> int:
    """One schemathesis run that must pass every check; returns how many cases it generated."""
    command = [sys.executable, "-m", "schemathesis.cli"]
    if config is not None:
        command += ["--config-file", str(config)]
    command += ["run", f"{url}/api/schema/", "--max-examples", str(EXAMPLES_PER_OPERATION), "--seed", "1",
                "--phases", "examples,coverage,fuzzing", "--checks", CHECKS, "--workers", "2",
                "--request-timeout", "30"]
    if token:
        command += ["--header", f"Authorization: Token {token}"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=500, check=False)
    assert run.returncode == 0, run.stdout[-12000:] + run.stderr[-3000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", run.stdout)
    assert cases and cases[1] == cases[2], run.stdout[-3000:]
    return int(cases[1])


def test_the_api_answers_fuzzed_requests_as_its_schema_says(site, user, token, django_user_model, tmp_path):
    server = site.server()
    ids = owned_objects(server.url, token, user, django_user_model)
    config = tmp_path / "schemathesis.toml"
    config.write_text(config_with_ids(ids))

    cases = {
        "anonymous": fuzz(server.url),
        "token, random ids": fuzz(server.url, token=token),
        "token, the user's objects": fuzz(server.url, token=token, config=config),
    }
    print(f"schema fuzz: {sum(cases.values())} cases, 0 failures (no 5xx, all conforming): {cases}")
