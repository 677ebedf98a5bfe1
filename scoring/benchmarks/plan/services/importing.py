"""Importing items into a split: samples upserted, their images copied under the split's media folder."""
from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence

from django.conf import settings
from django.db import transaction

from scoring.benchmarks.plan.core.types import Item
from scoring.benchmarks.plan.plugin import SLUG as PLAN_SLUG
from scoring.models import Sample, Split
from scoring.split_media import PUBLIC_DIR, split_media_folder

PUBLIC_IMAGE_ROOT = PLAN_SLUG  # under MEDIA_ROOT/public, served at /media/public/
# A public split's image folder as `plan_items_import` names it: <split name>-v<version>.
PUBLIC_SPLIT_FOLDER = re.compile(r"(?P<name>[-\w]+)-v(?P<version>\d+)")
ImageSource = Callable[[str], bytes | None]


def hidden_copy(hidden_names: set[str], splits: list[tuple[str, int, bool]]) -> Callable[[str], bool]:
    """The stale-media sweep's test (`PublicMedia.hidden_copy`): a public file is a hidden split's image when its
    folder (`<split>-v<version>`) is that of a hidden split's name and version that no public split has."""
    hidden = {(name, version) for name, version, is_hidden in splits if is_hidden}
    public = {(name, version) for name, version, is_hidden in splits if not is_hidden}

    def is_hidden_copy(name: str) -> bool:
        match = PUBLIC_SPLIT_FOLDER.fullmatch(name.split("/", 1)[0])
        return bool(match) and (match["name"], int(match["version"])) in hidden - public

    return is_hidden_copy


def _write_media(relative: str, data: bytes, *, hidden: bool) -> None:
    """Write an image named as `Sample.inputs["images"]` holds it: relative to MEDIA_ROOT/public, or (a hidden
    split's, starting with `hidden/`) relative to MEDIA_ROOT."""
    target = Path(settings.MEDIA_ROOT) / (relative if hidden else f"{PUBLIC_DIR}/{relative}")
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_bytes() != data:
        target.write_bytes(data)


def _inside(name: str) -> str | None:
    """`name` as a path inside the split's image folder (no leading slash), or None when it would leave it."""
    path = PurePosixPath(name.replace("\\", "/").lstrip("/"))
    if not path.parts or ".." in path.parts:
        return None
    return path.as_posix()


def plan_items_import(
    *, split: Split, items: Sequence[Item], read_image: ImageSource | None = None
) -> tuple[int, int, list[str]]:
    """Upsert the split's samples from items; copy their images under media/public/plan-bench/<split>-v<n>/ (a
    split with hidden ground truth: media/hidden/plan-bench/<split>/v<n>/, served only to those allowed to see it).

    Images come from `read_image(relative path)` or, for VLMEvalKit TSVs, from the base64 in the file. Returns
    (created, updated, problems), a problem being an image that could not be found or decoded.
    """
    hidden = split.hidden_ground_truth
    base = (f"{split_media_folder(benchmark_slug=PLAN_SLUG, split_name=split.name, hidden=True)}/v{split.version}"
            if hidden else f"{PUBLIC_IMAGE_ROOT}/{split.name}-v{split.version}")
    problems: list[str] = []
    created = updated = 0
    with transaction.atomic():
        for position, item in enumerate(items):
            stored: list[str] = []
            if item.embedded_images:
                for k, encoded in enumerate(item.embedded_images):
                    try:
                        data = base64.b64decode(encoded, validate=True)
                    except (binascii.Error, ValueError):
                        problems.append(f"line {item.line}: image {k} of '{item.id}' is not valid base64")
                        continue
                    inside = _inside(f"{item.id}/{k}.jpg")
                    if inside is None:
                        problems.append(f"line {item.line}: id '{item.id}' cannot name an image folder (it leaves "
                                        "the split's folder)")
                        continue
                    relative = f"{base}/{inside}"
                    _write_media(relative, data, hidden=hidden)
                    stored.append(relative)
            else:
                for name in item.images:
                    inside = _inside(name)
                    if inside is None:
                        problems.append(f"line {item.line}: image '{name}' of '{item.id}' leaves the images folder "
                                        "('..', or empty); not imported")
                        continue
                    data = read_image(name) if read_image else None
                    if data is None:
                        problems.append(f"line {item.line}: image '{name}' of '{item.id}' was not found")
                        continue
                    relative = f"{base}/{inside}"
                    _write_media(relative, data, hidden=hidden)
                    stored.append(relative)
            _, new = Sample.objects.update_or_create(
                split=split,
                key=item.id,
                defaults={
                    "position": position,
                    "category": item.dimension,
                    "group": item.type.value,
                    "task": item.subtask,
                    "inputs": {
                        "question": item.question,
                        "type": item.type.value,
                        "options": dict(item.options) if item.options else None,
                        "images": stored,
                    },
                    "ground_truth": {"answer": item.answer, "answer_hint": item.answer_hint},
                },
            )
            created += int(new)
            updated += int(not new)
    return created, updated, problems
