"""Images of a split with hidden ground truth are not public media: EPIC and PLAN imports keep them under
MEDIA_ROOT/hidden/<benchmark>/<split>/, and /media/hidden/... serves them only to reviewers, curators and those with
a submission on the split (404 for everyone else); the drill-down overlay still draws them for the submitter."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.template import Context, Template
from django.test import Client

from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import ImportError_, epic_split_import
from scoring.benchmarks.plan.core.demo import demo_items
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.models import Benchmark, Sample, Split
from tests.leaderboard.test_hidden_ground_truth import upload
from tests.scoring.bench_splits import past_the_intake

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def epic_samples():
    return epic_demo.make_split(17, per_leaf=1)


def _import(tmp_path, samples, *, name: str, hidden: bool) -> Split:
    epic_demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name=name, hidden=hidden)
    assert report.problems == []
    return split


def _urls(split: Split) -> list[str]:
    return [image["url"] for s in Sample.objects.filter(split=split) for image in s.inputs["images"]]


def _get(client: Client, url: str):
    response = client.get(url)
    body = b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content
    return response.status_code, body


def _person(django_user_model, name: str, group: str | None = None):
    person = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    if group:
        person.groups.add(Group.objects.get_or_create(name=group)[0])
    return person


def test_hidden_epic_split_images_are_not_public_media(tmp_path, settings, epic_samples, user, django_user_model):
    split = _import(tmp_path / "layout", epic_samples, name="secret-t", hidden=True)
    media = Path(settings.MEDIA_ROOT)
    urls = _urls(split)
    assert urls and all(u.startswith("/media/hidden/epic-bench/secret-t/img/") for u in urls)
    assert not (media / "public").exists() or not any((media / "public").rglob("*.*"))
    url = urls[0]
    on_disk = (media / url[len("/media/"):]).read_bytes()

    anonymous = Client()
    assert _get(anonymous, url)[0] == 404
    # the public route does not reach the hidden folder either
    assert _get(anonymous, url.replace("/media/hidden/", "/media/public/"))[0] == 404
    climbing = Client(raise_request_exception=False).get("/media/public/../hidden/" + url[len("/media/hidden/"):])
    assert climbing.status_code in (400, 404)

    stranger = Client()
    stranger.force_login(user)
    assert _get(stranger, url)[0] == 404
    for group in ("curator", "reviewer"):
        allowed = Client()
        allowed.force_login(_person(django_user_model, f"p-{group}", group))
        status, body = _get(allowed, url)
        assert (status, body) == (200, on_disk)
        assert allowed.get(url)["Cache-Control"] == "private, max-age=300"
        assert _get(allowed, url.replace(".png", ".gif").replace(".jpg", ".gif"))[0] == 404  # no such file

    # a submission on the split lets its submitter see the split's images
    rng = np.random.default_rng(0)
    lines = [epic_demo.raw_line(s, epic_demo.noisy_response(s, rng), prefix="/anywhere/") for s in epic_samples]
    upload(user, split, "\n".join(json.dumps(x) for x in lines).encode(), name="Model-E", options={"raw": True})
    assert _get(stranger, url) == (200, on_disk)
    assert _get(Client(), url)[0] == 404


def test_an_allowed_split_does_not_open_another_hidden_splits_images(tmp_path, epic_samples, user, django_user_model):
    hidden = _import(tmp_path / "a", epic_samples, name="secret-a", hidden=True)
    other = _import(tmp_path / "b", epic_samples[:2], name="secret-b", hidden=True)
    from_a = _urls(hidden)[-1]
    # the same file name asked under a split whose images are public to everyone
    _import(tmp_path / "c", epic_samples[:1], name="open", hidden=False)
    assert _get(Client(), from_a.replace("/secret-a/", "/open/"))[0] == 404
    assert _get(Client(), from_a.replace("/secret-a/", "/no-such-split/"))[0] == 404
    # nor under another hidden split's name, for someone allowed there only
    rng = np.random.default_rng(0)
    lines = [epic_demo.raw_line(s, epic_demo.noisy_response(s, rng), prefix="/anywhere/") for s in epic_samples[:2]]
    upload(user, other, "\n".join(json.dumps(x) for x in lines).encode(), name="Model-E", options={"raw": True})
    submitter = Client()
    submitter.force_login(user)
    assert _get(submitter, _urls(other)[0])[0] == 200
    assert _get(submitter, from_a)[0] == 404
    assert _get(submitter, from_a.replace("/secret-a/", "/secret-b/"))[0] == 404


def test_public_epic_split_images_stay_public_media(tmp_path, epic_samples):
    split = _import(tmp_path, epic_samples[:3], name="open-t", hidden=False)
    urls = _urls(split)
    assert urls and all(u.startswith("/media/public/epic-bench/img/") for u in urls)
    assert _get(Client(), urls[0])[0] == 200


def test_a_hidden_split_made_public_serves_its_images_to_everyone(tmp_path, epic_samples):
    split = _import(tmp_path, epic_samples[:2], name="later-open", hidden=True)
    url = _urls(split)[0]
    assert _get(Client(), url)[0] == 404
    Split.objects.filter(pk=split.pk).update(hidden_ground_truth=False)  # a curator opens it in the admin
    assert _get(Client(), url)[0] == 200


def test_a_split_name_that_is_not_a_slug_is_refused_before_anything_is_written(tmp_path, settings, epic_samples):
    epic_demo.write_layout(tmp_path, epic_samples[:1])
    with pytest.raises(ImportError_, match="split name '../x' is not a slug"):
        epic_split_import(path=tmp_path, split_name="../x", hidden=True)
    assert not any(Path(settings.MEDIA_ROOT).rglob("*.*"))


def test_overlay_of_a_hidden_split_draws_its_image_for_the_submitter(tmp_path, settings, epic_samples, user):
    split = _import(tmp_path, epic_samples, name="secret-o", hidden=True)
    rng = np.random.default_rng(0)
    lines = [epic_demo.raw_line(s, epic_demo.noisy_response(s, rng), prefix="/anywhere/") for s in epic_samples]
    submission = upload(user, split, "\n".join(json.dumps(x) for x in lines).encode(), name="Model-E",
                        options={"raw": True})
    owner = Client()
    owner.force_login(user)
    overlay_url = f"/submissions/{submission.pk}/samples/0/overlay.png"
    status, drawn = _get(owner, overlay_url)
    assert status == 200
    assert _get(Client(), overlay_url)[0] == 404
    # without the image file the overlay is drawn on a blank canvas: the two differ, so the image was used
    first = Sample.objects.get(split=split, position=0).inputs["images"][0]["url"]
    (Path(settings.MEDIA_ROOT) / first[len("/media/"):]).unlink()
    _, blank = _get(owner, overlay_url)
    decoded = [cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR) for b in (drawn, blank)]
    assert decoded[0].shape == decoded[1].shape and not np.array_equal(decoded[0], decoded[1])


def test_hidden_plan_split_images_are_served_only_to_reviewers(settings, django_user_model):
    benchmark = Benchmark.objects.get(slug="plan-bench")
    split = Split.objects.create(benchmark=benchmark, name="plan-secret", hidden_ground_truth=True)
    demo = demo_items()[:4]
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
    stored = [name for s in Sample.objects.filter(split=split) for name in s.inputs["images"]]
    assert stored and all(n.startswith("hidden/plan-bench/plan-secret/v1/") for n in stored)
    assert not (Path(settings.MEDIA_ROOT) / "public").exists()
    url = Template("{% load split_media %}{{ name|split_image_url }}").render(Context({"name": stored[0]}))
    assert url == "/media/" + stored[0]
    assert _get(Client(), url)[0] == 404
    reviewer = Client()
    reviewer.force_login(_person(django_user_model, "rev", "reviewer"))
    assert _get(reviewer, url) == (200, (Path(settings.MEDIA_ROOT) / stored[0]).read_bytes())
    # a public PLAN split keeps its names relative to media/public
    public = Split.objects.create(benchmark=benchmark, name="plan-open", hidden_ground_truth=False)
    plan_items_import(split=public, items=[d.item for d in demo], read_image=images.get)
    name = Sample.objects.filter(split=public).first().inputs["images"][0]
    url = Template("{% load split_media %}{{ name|split_image_url }}").render(Context({"name": name}))
    assert url == "/media/public/" + name and _get(Client(), url)[0] == 200


def test_plan_image_paths_and_ids_that_leave_the_split_folder_are_refused(settings):
    """An items file naming an image `../../x.png`, or a TSV whose id is `../..`, would write outside the split's
    image folder: each is a problem naming the line, and nothing is written outside."""
    from dataclasses import replace

    benchmark = Benchmark.objects.get(slug="plan-bench")
    split = Split.objects.create(benchmark=benchmark, name="plan-paths", hidden_ground_truth=False)
    [first, second, third] = [d.item for d in demo_items()[:3]]
    png = next(iter(demo_items()[0].images.values()))
    items = [replace(first, images=("../../../escape.png",), line=1),
             replace(second, id="../../up", images=(), embedded_images=("aGVsbG8=",), line=2),
             replace(third, images=("sub/./ok.png",), line=3)]
    created, _, problems = plan_items_import(split=split, items=items, read_image=lambda name: png)
    assert created == 3
    assert problems == [
        "line 1: image '../../../escape.png' of '" + first.id + "' leaves the images folder ('..', or empty); "
        "not imported",
        "line 2: id '../../up' cannot name an image folder (it leaves the split's folder)",
    ]
    media = Path(settings.MEDIA_ROOT)
    written = sorted(str(p.relative_to(media)) for p in media.rglob("*") if p.is_file())
    assert written == ["public/plan-bench/plan-paths-v1/sub/ok.png"]
    assert not list(media.parent.rglob("escape.png")) and not list(media.parent.rglob("0.jpg"))
    assert Sample.objects.get(split=split, key=third.id).inputs["images"] == ["plan-bench/plan-paths-v1/sub/ok.png"]


def _plan_split(name: str, *, hidden: bool, count: int = 2) -> tuple[Split, list[str]]:
    benchmark = Benchmark.objects.get(slug="plan-bench")
    split = Split.objects.create(benchmark=benchmark, name=name, hidden_ground_truth=hidden)
    demo = demo_items()[:count]
    images = {image: png for d in demo for image, png in d.images.items()}
    plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
    return split, [n for s in Sample.objects.filter(split=split) for n in s.inputs["images"]]


@pytest.mark.parametrize("dots", ["%2e%2e", "..", "%2E%2E", ".%2e"])
def test_a_path_climbing_out_of_an_open_split_into_a_hidden_one_is_404(tmp_path, settings, epic_samples, dots):
    """The check must be asked of the folder the path resolves to, not of the split the URL names: from a split
    whose images are open, `..` (sent as is or percent-encoded) must not climb into a hidden split's folder, of the
    same benchmark or of another."""
    _, hidden_names = _plan_split("plan-secret-t", hidden=True)
    # an open split under /media/hidden/ (a hidden split made public keeps its folder)
    _plan_split("demo", hidden=True)
    Split.objects.filter(name="demo").update(hidden_ground_truth=False)
    epic = _import(tmp_path, epic_samples[:1], name="epic-secret-t", hidden=True)
    media = Path(settings.MEDIA_ROOT)
    inner = hidden_names[0][len("hidden/plan-bench/"):]  # plan-secret-t/v1/<item>/<image>
    assert (media / hidden_names[0]).is_file()
    epic_inner = _urls(epic)[0][len("/media/hidden/"):]  # epic-bench/epic-secret-t/img/...
    anonymous = Client(raise_request_exception=False)
    for url in (f"/media/hidden/plan-bench/demo/{dots}/{inner}",
                f"/media/hidden/plan-bench/demo/v1/{dots}/{dots}/{inner}",
                f"/media/hidden/plan-bench/demo/{dots}/{dots}/{epic_inner}",
                f"/media/public/{dots}/{hidden_names[0]}",
                f"/media/public/plan-bench/{dots}/{dots}/{hidden_names[0]}"):
        status, body = _get(anonymous, url)
        assert status == 404, (url, status)
        assert body != (media / hidden_names[0]).read_bytes()
    # the hidden files are there: the refusal is the rule, not a missing file
    curator = Client()
    curator.force_login(_curator_named("trav-curator", "curator"))
    assert _get(curator, "/media/" + hidden_names[0])[0] == 200


def _curator_named(name: str, group: str):
    from django.contrib.auth import get_user_model

    person = get_user_model().objects.create_user(name, password=f"pw-{name}-123")
    person.groups.add(Group.objects.get_or_create(name=group)[0])
    return person


def test_a_symlink_out_of_the_media_folder_is_not_followed(tmp_path, settings):
    """A link under media/public pointing at a hidden split's folder (or anywhere outside public/) is not served."""
    _, hidden_names = _plan_split("plan-linked", hidden=True)
    media = Path(settings.MEDIA_ROOT)
    (media / "public").mkdir(parents=True, exist_ok=True)
    (media / "public" / "peek").symlink_to(media / "hidden")
    outside = tmp_path / "outside.txt"
    outside.write_text("not media")
    (media / "public" / "out.txt").symlink_to(outside)
    assert _get(Client(), "/media/public/peek/" + hidden_names[0][len("hidden/"):])[0] == 404
    assert _get(Client(), "/media/public/out.txt")[0] == 404


def test_a_junk_upload_does_not_open_a_hidden_splits_images(user):
    """Only a submission accepted for scoring counts: a junk file (scored as failed) or a withdrawn submission
    leaves the hidden split's images at 404 for its submitter."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from scoring import pipeline
    from scoring import services as scoring_services
    from scoring.models import ModelEntry, Submission

    split, names = _plan_split("plan-junk", hidden=True)
    url = "/media/" + names[0]
    submitter = Client()
    submitter.force_login(user)
    assert _get(submitter, url)[0] == 404
    entry = ModelEntry.objects.create(name="Junk-M", slug="junk-m")
    with past_the_intake():  # a junk file the scorer fails (the intake would refuse it before storing)
        junk = scoring_services.submission_create(
            user=user, split=split, model_entry=entry, options={},
            uploaded_file=SimpleUploadedFile("junk.jsonl", b'{"id": "nothing-here"}\n{"not": "an answer"}\n'))
    pipeline.submission_score(submission_id=junk.pk, worker="test")
    junk.refresh_from_db()
    assert junk.status == Submission.Status.FAILED
    assert _get(submitter, url)[0] == 404
    # a withdrawn scored one does not count either
    Submission.objects.filter(pk=junk.pk).update(status=Submission.Status.SCORED,
                                                 visibility=Submission.Visibility.WITHDRAWN)
    assert _get(submitter, url)[0] == 404
    Submission.objects.filter(pk=junk.pk).update(visibility=Submission.Visibility.PRIVATE)
    assert _get(submitter, url)[0] == 200
