"""Stale public copies of hidden splits' images: files under a benchmark's public image folder
(MEDIA_ROOT/public/<folder>/, its plugin's `public_media`) that no record names any more and that are a hidden split's
images, so anyone could fetch them as plain public media.

A file there is stale when no sample of any split and no other record the plugins name (`PublicMedia.references`)
names it at its public path, and its plugin knows it to be a hidden split's image (`PublicMedia.hidden_copy`: from
the names hidden splits' samples hold and the splits' names, versions and hiddenness). Other unnamed files there
are orphans, removed only when asked. A file a hidden split or such a record still names at its public path is
kept: removing it would break that split's pages or the record's; re-importing the split moves its images under
hidden/. Only plain files inside those folders are ever listed or removed: symbolic links are neither followed nor
removed, and other folders (uploads, annotation images, benchmarks without `public_media`) are never looked at.
"""
from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings

from scoring import benchmarks
from scoring.core.plugin import PublicMedia, load_target
from scoring.models import Sample, Split
from scoring.split_media import HIDDEN_DIR, PUBLIC_DIR

RE_IMPORT = "re-import that split so its images move under hidden/"


def _layouts() -> dict[str, PublicMedia]:
    """The folders (relative to MEDIA_ROOT) the benchmarks' importers write public splits' images into, the only
    ones looked at, and their layouts."""
    return {f"{PUBLIC_DIR}/{p.public_media.folder}": p.public_media for p in benchmarks.plugins() if p.public_media}


@dataclass(frozen=True)
class PublicFile:
    name: str  # relative to MEDIA_ROOT, e.g. public/<folder>/img/ab/ab….png
    size: int


@dataclass
class StalePublicMedia:
    """What a look at the public folders found; `remove` is what `stale_public_media_remove` deletes."""

    remove: list[PublicFile] = field(default_factory=list)
    orphans_left: list[PublicFile] = field(default_factory=list)
    # who still names a hidden split's image at its public path (a hidden split, another record) -> file names
    still_named: dict[str, list[str]] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)  # who -> what to do so it names them no more
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


def _scanned_root(name: str, scanned: Iterable[str]) -> str | None:
    """The scanned folder `name` (relative to MEDIA_ROOT) lies in, or None."""
    return next((root for root in scanned if name.startswith(root + "/")), None)


@dataclass
class _References:
    scanned: tuple[str, ...]
    public: set[str] = field(default_factory=set)  # scanned names a public split's sample names
    others: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # scanned name -> who
    hidden_names: set[str] = field(default_factory=set)  # names outside the scanned folders a hidden split names
    actions: dict[str, str] = field(default_factory=dict)  # other records' who -> what to do

    def add(self, strings: Iterable[str], *, public: bool, who: str, media_url: str) -> None:
        for reference in strings:
            for name in media_names(reference, media_url=media_url):
                if _scanned_root(name, self.scanned):
                    if public:
                        self.public.add(name)
                    else:
                        self.others[name].add(who)
                elif not public:
                    self.hidden_names.add(name)


def _references(layouts: dict[str, PublicMedia]) -> _References:
    """The image names every sample (in `Sample.inputs`, what the model is shown) and every record the plugins
    name (`PublicMedia.references`) holds."""
    media_url = settings.MEDIA_URL or ""
    labels = {s.pk: str(s) for s in Split.objects.select_related("benchmark")}
    found = _References(tuple(layouts))
    rows = Sample.objects.values_list("split_id", "split__hidden_ground_truth", "inputs")
    for split_id, hidden, inputs in rows.iterator(chunk_size=1000):
        found.add(_strings(inputs), public=not hidden, who=f"hidden split {labels.get(split_id, split_id)}",
                  media_url=media_url)
    for layout in layouts.values():
        if layout.references:
            found.actions[layout.references_name] = layout.references_action
            for value in load_target(layout.references)():
                found.add(_strings(value), public=False, who=layout.references_name, media_url=media_url)
    return found


def _public_files(media: Path, scanned: Iterable[str], skipped: list[str]) -> Iterator[PublicFile]:
    """The plain files under the scanned folders, never through a symbolic link."""
    if (media / PUBLIC_DIR).is_symlink():
        skipped.append(f"{PUBLIC_DIR}/")
        return
    for root in scanned:
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


def stale_public_media(*, orphans: bool = False) -> StalePublicMedia:
    """Find the stale public copies of hidden splits' images (and, with `orphans`, every file under the scanned
    folders that nothing names). Reads only; run it when no import or publishing is under way."""
    media = Path(settings.MEDIA_ROOT).resolve()
    layouts = _layouts()
    refs = _references(layouts)
    versions = list(Split.objects.values_list("name", "version", "hidden_ground_truth"))
    hidden_copy = {root: load_target(layout.hidden_copy)(refs.hidden_names, versions)
                   for root, layout in layouts.items()}
    found = StalePublicMedia()
    still_named: dict[str, list[str]] = defaultdict(list)
    for file in _public_files(media, layouts, found.skipped):
        root = _scanned_root(file.name, layouts)
        if file.name in refs.public:
            continue
        if file.name in refs.others:
            for who in sorted(refs.others[file.name]):
                still_named[who].append(file.name)
        elif (root and hidden_copy[root](file.name[len(root) + 1:])) or orphans:
            found.remove.append(file)
        else:
            found.orphans_left.append(file)
    found.still_named = dict(still_named)
    found.actions = {who: refs.actions.get(who, RE_IMPORT) for who in found.still_named}
    return found


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def stale_public_media_remove(*, found: StalePublicMedia) -> RemovedMedia:
    """Delete the files `found.remove` lists, then the folders that left empty, up to (not including) the scanned
    folder. A file that is gone already, is no longer a plain file, or no longer resolves inside its scanned folder
    is passed over."""
    media = Path(settings.MEDIA_ROOT).resolve()
    scanned = tuple(_layouts())
    removed = RemovedMedia()
    emptied: set[Path] = set()
    for file in found.remove:
        parts = PurePosixPath(file.name).parts
        root = _scanned_root(file.name, scanned)
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
        root = next(media / r for r in scanned if _inside(folder, media / r))
        while folder != root and _inside(folder, root) and not folder.is_symlink():
            try:
                folder.rmdir()
            except OSError:
                break  # not empty (or gone): its parents are not empty either
            removed.folders.append(folder.relative_to(media).as_posix())
            folder = folder.parent
    return removed
