"""`manage.py prune_public_media`: the public copies of hidden splits' images that imports made before hidden
splits had their own media folder are listed (dry run) and removed (--apply); a public split's images, a file a
public split shares with a hidden one, VGE device images, files a hidden split or an open PLAN judgement still
names, orphans (unless --orphans) and anything behind a symbolic link are kept."""
from __future__ import annotations

import copy
import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.benchmarks.plan.core.demo import demo_items
from scoring.benchmarks.plan.models import PlanJudgement
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.models import Benchmark, Sample, Split
from simulator.services.library import vge_import
from tests.scoring.bench_splits import epic_split, plan_split
from tests.scoring.benchmarks.vge.core.conftest import TINY

pytestmark = pytest.mark.django_db

WOULD_REMOVE = re.compile(r"would remove (\S+) \((\d+) bytes\)")


@pytest.fixture(scope="module")
def epic_samples():
    """The same demo samples `bench_splits.epic_split` imports: a public split of a few of them shares files."""
    return epic_demo.make_split(17, per_leaf=1)


def _media(settings) -> Path:
    return Path(settings.MEDIA_ROOT)


def _names(split: Split) -> list[str]:
    """The names relative to MEDIA_ROOT of a split's images, whichever importer wrote them."""
    names = []
    for inputs in Sample.objects.filter(split=split).values_list("inputs", flat=True):
        for image in inputs["images"]:
            names.append(image["url"][len("/media/"):] if isinstance(image, dict) else image)
    return sorted({n if n.startswith(("hidden/", "public/")) else f"public/{n}" for n in names})


def _as_before(hidden_name: str) -> str:
    """Where the importers put a hidden split's image before hidden splits had their own folder."""
    if hidden_name.startswith("hidden/epic-bench/"):
        return "public/epic-bench/img/" + hidden_name.split("/img/", 1)[1]
    _, _, split, version, rest = hidden_name.split("/", 4)  # hidden/plan-bench/<split>/v<n>/<rest>
    return f"public/plan-bench/{split}-{version}/{rest}"


def _leave_old_public_copies(media: Path, split: Split) -> list[str]:
    """The pre-change state: each hidden image also under public/, where the old importer put it."""
    copies = []
    for name in _names(split):
        assert name.startswith("hidden/")
        old = media / _as_before(name)
        old.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(media / name, old)
        copies.append(_as_before(name))
    return sorted(copies)


def _public_epic(tmp_path: Path, samples, *, name: str = "open") -> Split:
    epic_demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name=name, hidden=False)
    assert report.problems == []
    return split


def _prune(*args: str) -> str:
    out = StringIO()
    call_command("prune_public_media", *args, stdout=out)
    return out.getvalue()


def _files(media: Path, under: str = "public") -> set[str]:
    return {p.relative_to(media).as_posix() for p in (media / under).rglob("*") if p.is_file()}


def test_dry_run_lists_a_hidden_splits_old_public_copies_and_removes_nothing(tmp_path, settings, epic_samples):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    public = _public_epic(tmp_path / "public", epic_samples[:2])
    copies = _leave_old_public_copies(media, hidden)
    before = _files(media, "")

    output = _prune()

    listed = dict(WOULD_REMOVE.findall(output))
    stale = sorted(set(copies) - set(_names(public)))
    assert stale and sorted(listed) == stale
    assert all(int(listed[name]) == (media / name).stat().st_size for name in stale)
    total = sum((media / name).stat().st_size for name in stale)
    assert f"Dry run: {len(stale)} file(s), {total} bytes would be removed" in output
    assert _files(media, "") == before


def test_apply_removes_them_and_keeps_the_public_splits_images(tmp_path, settings, epic_samples):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    public = _public_epic(tmp_path / "public", epic_samples[:2])
    copies = _leave_old_public_copies(media, hidden)
    stale = sorted(set(copies) - set(_names(public)))
    total = sum((media / name).stat().st_size for name in stale)
    hidden_files = _files(media, "hidden")

    output = _prune("--apply")

    assert f"Removed {len(stale)} file(s), {total} bytes" in output
    assert all(f"removed {name} (" in output for name in stale)
    assert _files(media) == set(_names(public))
    assert _files(media, "hidden") == hidden_files
    for name in _names(public):
        response = Client().get("/media/" + name)
        assert response.status_code == 200
    # the folders left empty went too, the benchmark's folder stays
    assert not any(p.is_dir() and not any(p.iterdir()) for p in (media / "public").rglob("*"))
    assert (media / "public/epic-bench/img").is_dir()


def test_a_file_a_public_and_a_hidden_split_both_name_is_kept(tmp_path, settings, epic_samples):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    public = _public_epic(tmp_path / "public", epic_samples[:1])
    shared = set(_names(public)) & {_as_before(n) for n in _names(hidden)}
    assert shared  # content-addressed: the same image is one file name in both
    _leave_old_public_copies(media, hidden)

    output = _prune("--apply")

    assert all((media / name).is_file() for name in shared)
    assert not any(name in output for name in shared)
    assert "Removed 0 file(s)" not in output  # the hidden-only copies did go


def test_apply_twice_is_harmless(tmp_path, settings, epic_samples):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    public = _public_epic(tmp_path / "public", epic_samples[:2])
    _leave_old_public_copies(media, hidden)
    first = _prune("--apply")
    after_first = _files(media, "")

    second = _prune("--apply")

    assert "Removed 0 file(s)" not in first
    assert "Removed 0 file(s), 0 bytes, and 0 empty folder(s)." in second
    assert _files(media, "") == after_first
    assert _files(media) == set(_names(public))
    assert "Dry run: 0 file(s), 0 bytes would be removed." in _prune()


def test_a_hidden_plan_splits_old_public_copies_go_and_a_public_plan_splits_stay(settings):
    media = _media(settings)
    hidden = plan_split()
    copies = _leave_old_public_copies(media, hidden)
    assert copies and all(c.startswith("public/plan-bench/t-v1/") for c in copies)
    public = Split.objects.create(benchmark=Benchmark.objects.get(slug="plan-bench"), name="open",
                                  hidden_ground_truth=False)
    demo = demo_items()[:3]
    plan_items_import(split=public, items=[d.item for d in demo],
                      read_image={n: png for d in demo for n, png in d.images.items()}.get)
    kept = _names(public)
    assert kept and all(n.startswith("public/plan-bench/open-v1/") for n in kept)

    assert sorted(dict(WOULD_REMOVE.findall(_prune()))) == copies
    output = _prune("--apply")

    assert f"Removed {len(copies)} file(s)" in output
    assert _files(media) == set(kept)
    assert not (media / "public/plan-bench/t-v1").exists()
    assert _files(media, "hidden") == set(_names(hidden))


def test_an_image_an_open_plan_judgement_shows_is_kept_until_it_is_decided(settings):
    media = _media(settings)
    copies = _leave_old_public_copies(media, plan_split())
    shown = copies[0]
    # a judgement queued before the split was re-imported: its snapshot names the image as PLAN did then
    judgement = PlanJudgement.objects.create(item_key="demo", item_fingerprint="f", output_hash="o",
                                             item={"question": "?", "images": [shown[len("public/"):]]})

    output = _prune("--apply")

    assert f"kept: 1 file(s) under public/ still named by the open PLAN judgements, e.g. {shown}" in output
    assert _files(media) == {shown}
    PlanJudgement.objects.filter(pk=judgement.pk).update(status=PlanJudgement.Status.DECIDED)
    assert "Removed 1 file(s)" in _prune("--apply") and _files(media) == set()


def test_vge_device_images_are_kept(tmp_path, settings):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    _leave_old_public_copies(media, hidden)
    device = copy.deepcopy(TINY)
    device["views"]["front"]["image"] = "front.png"
    (tmp_path / "vge").mkdir()
    (tmp_path / "vge" / "tiny.json").write_text(json.dumps(device))
    (tmp_path / "vge" / "front.png").write_bytes(b"\x89PNG\r\n\x1a\nfront")
    vge_import(path=tmp_path / "vge")
    # a device folder holding a file named like a hidden split's image is not the EPIC folder either
    look_alike = "public/vge/devices/tiny/" + _names(hidden)[0].rsplit("/", 1)[1]
    shutil.copyfile(media / _names(hidden)[0], media / look_alike)
    vge_files = _files(media, "public/vge")

    output = _prune("--apply")

    assert "Removed 0 file(s)" not in output
    assert _files(media, "public/vge") == vge_files
    assert {"public/vge/devices/tiny/front.png", look_alike} <= vge_files
    assert _files(media) == vge_files


def test_images_a_hidden_split_still_names_at_their_public_path_are_kept_until_it_is_reimported(tmp_path, settings,
                                                                                                epic_samples):
    media = _media(settings)
    # imported before hidden splits had their own folder: its samples name public/ files
    split = _public_epic(tmp_path, epic_samples[:3], name="secret")
    Split.objects.filter(pk=split.pk).update(hidden_ground_truth=True)
    old = _names(split)
    assert all(n.startswith("public/epic-bench/img/") for n in old)

    output = _prune("--apply")

    assert f"kept: {len(old)} file(s) under public/ still named by hidden split epic-bench/secret" in output
    assert "Removed 0 file(s)" in output and _files(media) == set(old)

    # re-importing moves its images under hidden/ (the public copies stay behind), and then they go
    _, report = epic_split_import(path=tmp_path, split_name="secret", hidden=True)
    assert report.problems == [] and all(n.startswith("hidden/") for n in _names(split))
    output = _prune("--apply")
    assert f"Removed {len(old)} file(s)" in output
    assert _files(media) == set()


def test_symbolic_links_are_neither_followed_nor_removed(tmp_path, settings):
    media = _media(settings)
    hidden = epic_split(tmp_path / "hidden")
    copies = _leave_old_public_copies(media, hidden)
    outside = tmp_path / "outside"
    # a linked folder whose file has a hidden image's name
    first = media / copies[0]
    shutil.rmtree(first.parent)
    (outside / "linked").mkdir(parents=True)
    shutil.copyfile(media / _names(hidden)[0], outside / "linked" / first.name)
    first.parent.symlink_to(outside / "linked", target_is_directory=True)
    # a linked file with a hidden image's name
    second = next(media / c for c in copies if (media / c).parent != first.parent)
    second.unlink()
    (outside / "target.png").write_bytes(b"not yours")
    second.symlink_to(outside / "target.png")
    # the whole PLAN folder a link
    (outside / "plan").mkdir()
    (outside / "plan" / "t-v1").mkdir()
    (outside / "plan" / "t-v1" / "x.png").write_bytes(b"plan")
    (media / "public/plan-bench").symlink_to(outside / "plan", target_is_directory=True)

    output = _prune("--apply")

    assert (outside / "linked" / first.name).is_file() and first.parent.is_symlink()
    assert (outside / "target.png").read_bytes() == b"not yours" and second.is_symlink()
    assert (outside / "plan" / "t-v1" / "x.png").is_file()
    for name in (first.parent, second, media / "public/plan-bench"):
        assert f"skipped: {name.relative_to(media).as_posix()}" in output
    assert "Removed 0 file(s)" not in output  # the other copies did go


def test_orphans_are_left_unless_asked(tmp_path, settings):
    media = _media(settings)
    orphans = ["public/epic-bench/img/ee/unknown.png", "public/plan-bench/deleted-v1/item/0.png",
               "public/epic-bench/notes.txt"]
    for name in orphans:
        (media / name).parent.mkdir(parents=True, exist_ok=True)
        (media / name).write_bytes(b"orphan")

    output = _prune("--apply")

    assert "left: 3 file(s) (18 bytes) that nothing names" in output and "Removed 0 file(s)" in output
    assert _files(media) == set(orphans)
    assert sorted(dict(WOULD_REMOVE.findall(_prune("--orphans")))) == sorted(orphans)
    output = _prune("--apply", "--orphans")
    assert "Removed 3 file(s), 18 bytes" in output and _files(media) == set()
