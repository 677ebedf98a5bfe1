"""Stale public copies of hidden splits' images: files under MEDIA_ROOT/public/<epic-bench|plan-bench>/ that no
record names any more and that are a hidden split's images, so anyone could fetch them as plain public media.

A file there is stale when no sample of any split and no PLAN judgement names it at its public path, and it is
known to be a hidden split's image: EPIC (content-addressed, `img/<xx>/<sha256>.<ext>`) when a hidden split names
the same file name under its hidden folder; PLAN (`<split>-v<version>/...`) when that split name and version is
hidden and no public split has it. Other unnamed files there are orphans, removed only when asked. A file a hidden
split or an open PLAN judgement still names at its public path is kept: removing it would break that split's pages
or the judgement queue; re-importing the split moves its images under hidden/, a decided judgement shows none.
Only plain files inside those two folders are ever listed or removed: symbolic links are neither followed nor
removed, and other folders (VGE device images under public/vge/, uploads, annotation images) are never looked at.
"""
from __future__ import annotations

import os
import re
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings

from scoring.benchmarks.epic.importer import MEDIA_SUBDIR as EPIC_PUBLIC_IMAGES
from scoring.benchmarks.epic.plugin import SLUG as EPIC_SLUG
from scoring.benchmarks.plan.models import PlanJudgement
from scoring.benchmarks.plan.services.importing import PUBLIC_IMAGE_ROOT as PLAN_PUBLIC_ROOT
from scoring.models import Sample, Split
from scoring.split_media import HIDDEN_DIR, PUBLIC_DIR

# The folders the EPIC and PLAN importers write public splits' images into: the only ones looked at.
SCANNED = (f"{PUBLIC_DIR}/{EPIC_SLUG}", f"{PUBLIC_DIR}/{PLAN_PUBLIC_ROOT}")
# A hidden EPIC split's image as `epic_split_import` names it: hidden/<benchmark>/<split>/img/<xx>/<sha256>.<ext>.
HIDDEN_EPIC_IMAGE = re.compile(rf"{HIDDEN_DIR}/[-\w]+/[-\w]+/img/(?P<key>[^/]+/[^/]+)")
# A public PLAN split's image folder as `plan_items_import` names it: <split name>-v<version>.
PLAN_FOLDER = re.compile(r"(?P<name>[-\w]+)-v(?P<version>\d+)")
JUDGEMENT_QUEUE = "the open PLAN judgements"


@dataclass(frozen=True)
class PublicFile:
    name: str  # relative to MEDIA_ROOT, e.g. public/epic-bench/img/ab/ab….png
    size: int


@dataclass
class StalePublicMedia:
    """What a look at the public folders found; `remove` is what `stale_public_media_remove` deletes."""

    remove: list[PublicFile] = field(default_factory=list)
    orphans_left: list[PublicFile] = field(default_factory=list)
    # who still names a hidden split's image at its public path (a hidden split, the judgement queue) -> file names
    still_named: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # symbolic links and other things that are not plain files

    @property
    def remove_bytes(self) -> int:
        return sum(f.size for f in self.remove)


@dataclass
class RemovedMedia:
    files: list[PublicFile] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def media_names(reference: str, *, media_url: str) -> set[str]:
    """The names relative to MEDIA_ROOT that an image reference may denote: a URL under MEDIA_URL, a name relative
    to MEDIA_ROOT, or one relative to MEDIA_ROOT/public (PLAN's); a public/ or hidden/ part further on (a URL
    stored under another MEDIA_URL) counts too. More names than the one meant only keep more files."""
    text = reference[len(media_url):] if media_url and reference.startswith(media_url) else reference
    text = text.lstrip("/")
    names = {text, f"{PUBLIC_DIR}/{text}"}
    for folder in (PUBLIC_DIR, HIDDEN_DIR):
        start = text.find(f"/{folder}/")
        while start >= 0:
            names.add(text[start + 1:])
            start = text.find(f"/{folder}/", start + 1)
    return names


def _scanned_root(name: str) -> str | None:
    """The scanned folder `name` (relative to MEDIA_ROOT) lies in, or None."""
    return next((root for root in SCANNED if name.startswith(root + "/")), None)


@dataclass
class _References:
    public: set[str] = field(default_factory=set)  # scanned names a public split's sample names
    others: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # scanned name -> who
    hidden_epic_keys: set[str] = field(default_factory=set)  # <xx>/<sha256>.<ext> a hidden split names

    def add(self, strings: Iterable[str], *, public: bool, who: str, media_url: str) -> None:
        for reference in strings:
            for name in media_names(reference, media_url=media_url):
                if _scanned_root(name):
                    if public:
                        self.public.add(name)
                    else:
                        self.others[name].add(who)
                elif not public and (match := HIDDEN_EPIC_IMAGE.fullmatch(name)):
                    self.hidden_epic_keys.add(match["key"])


def _references() -> _References:
    """The image names every sample (in `Sample.inputs`, what the model is shown) and every open PLAN judgement
    (its item's snapshot) holds."""
    media_url = settings.MEDIA_URL or ""
    labels = {s.pk: str(s) for s in Split.objects.select_related("benchmark")}
    found = _References()
    rows = Sample.objects.values_list("split_id", "split__hidden_ground_truth", "inputs")
    for split_id, hidden, inputs in rows.iterator(chunk_size=1000):
        found.add(_strings(inputs), public=not hidden, who=f"hidden split {labels.get(split_id, split_id)}",
                  media_url=media_url)
    open_judgements = PlanJudgement.objects.filter(status=PlanJudgement.Status.OPEN)  # the queue shows their images
    for item in open_judgements.values_list("item", flat=True).iterator(chunk_size=1000):
        found.add(_strings(item), public=False, who=JUDGEMENT_QUEUE, media_url=media_url)
    return found


def _public_files(media: Path, skipped: list[str]) -> Iterator[PublicFile]:
    """The plain files under the scanned folders, never through a symbolic link."""
    if (media / PUBLIC_DIR).is_symlink():
        skipped.append(f"{PUBLIC_DIR}/")
        return
    for root in SCANNED:
        base = media / root
        if base.is_symlink():
            skipped.append(f"{root}/")
            continue
        if not base.is_dir():
            continue
        for folder, dirs, files in os.walk(base, followlinks=False):
            here = Path(folder)
            for name in sorted(dirs):
                if (here / name).is_symlink():  # os.walk lists it but does not go in
                    skipped.append((here / name).relative_to(media).as_posix() + "/")
            for name in sorted(files):
                path = here / name
                try:
                    info = os.lstat(path)
                except FileNotFoundError:
                    continue  # removed meanwhile
                relative = path.relative_to(media).as_posix()
                if stat.S_ISREG(info.st_mode):
                    yield PublicFile(relative, info.st_size)
                else:
                    skipped.append(relative)


def _hidden_split_image(name: str, refs: _References, plan_hidden: set[tuple[str, int]],
                        plan_public: set[tuple[str, int]]) -> bool:
    """Whether a scanned file is known to be a hidden split's image (see the module docstring)."""
    if name.startswith(EPIC_PUBLIC_IMAGES + "/"):
        return name[len(EPIC_PUBLIC_IMAGES) + 1:] in refs.hidden_epic_keys
    plan_root = f"{PUBLIC_DIR}/{PLAN_PUBLIC_ROOT}/"
    if name.startswith(plan_root):
        match = PLAN_FOLDER.fullmatch(name[len(plan_root):].split("/", 1)[0])
        if match:
            key = (match["name"], int(match["version"]))
            return key in plan_hidden and key not in plan_public
    return False


def stale_public_media(*, orphans: bool = False) -> StalePublicMedia:
    """Find the stale public copies of hidden splits' images (and, with `orphans`, every file under the scanned
    folders that nothing names). Reads only; run it when no import or publishing is under way."""
    media = Path(settings.MEDIA_ROOT).resolve()
    refs = _references()
    versions = list(Split.objects.values_list("name", "version", "hidden_ground_truth"))
    plan_hidden = {(name, version) for name, version, hidden in versions if hidden}
    plan_public = {(name, version) for name, version, hidden in versions if not hidden}
    found = StalePublicMedia()
    still_named: dict[str, list[str]] = defaultdict(list)
    for file in _public_files(media, found.skipped):
        if file.name in refs.public:
            continue
        if file.name in refs.others:
            for who in sorted(refs.others[file.name]):
                still_named[who].append(file.name)
        elif _hidden_split_image(file.name, refs, plan_hidden, plan_public) or orphans:
            found.remove.append(file)
        else:
            found.orphans_left.append(file)
    found.still_named = dict(still_named)
    return found


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def stale_public_media_remove(*, found: StalePublicMedia) -> RemovedMedia:
    """Delete the files `found.remove` lists, then the folders that left empty, up to (not including) the scanned
    folder. A file that is gone already, is no longer a plain file, or no longer resolves inside its scanned folder
    is passed over."""
    media = Path(settings.MEDIA_ROOT).resolve()
    removed = RemovedMedia()
    emptied: set[Path] = set()
    for file in found.remove:
        parts = PurePosixPath(file.name).parts
        root = _scanned_root(file.name)
        if root is None or ".." in parts:
            continue
        base = media / root
        path = media.joinpath(*parts)
        if (media / PUBLIC_DIR).is_symlink() or base.is_symlink() or not _inside(path.resolve(), base):
            continue  # a link somewhere on the way: never delete through it
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            os.unlink(path)
        except FileNotFoundError:
            continue
        removed.files.append(file)
        emptied.add(path.parent)
    for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        root = next(media / r for r in SCANNED if _inside(folder, media / r))
        while folder != root and _inside(folder, root) and not folder.is_symlink():
            try:
                folder.rmdir()
            except OSError:
                break  # not empty (or gone): its parents are not empty either
            removed.folders.append(folder.relative_to(media).as_posix())
            folder = folder.parent
    return removed
