"""The files a benchmark's format page hands out: a small example prediction file for a split (the plugin's
`FormatGuide.example_record` for its first samples; the scorer accepts it) and the inputs of a split as a zip.

A split's inputs: `questions.jsonl` (one line per sample: key, labels and what the model is shown), the files the
plugin's `FormatGuide.input_files` builds from those same records (EPIC: the paper's prompts) and, for a split
with public ground truth only, its images; of a hidden split the questions only, its images named but not
included. Ground truth is never read (`scoring.selectors.split_inputs`). Images are found by the convention the
importers follow: `inputs["images"]` lists paths relative to MEDIA_ROOT or MEDIA_ROOT/public, or {"name", "url"}
objects whose url is under MEDIA_URL; nothing under MEDIA_ROOT/private is ever read. The zip is built once per
content (a digest of the questions and of the images' names and sizes) under VAR_DIR/format-inputs/.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from django.conf import settings

from scoring.benchmarks import plugin_for
from scoring.core.contract import SampleRecord
from scoring.models import Split
from scoring.selectors import split_inputs

EXAMPLE_SAMPLES = 50  # lines of an example file: small, and still a file the scorer accepts (the rest score 0)


def example_file(*, split: Split) -> tuple[str, dict[str, Any]] | None:
    """(the text of an example prediction file, the upload options it needs), or None when the benchmark's plugin
    declares no example."""
    guide = plugin_for(split.benchmark.scorer).format
    make = guide.example_function()
    if make is None:
        return None
    records = split_inputs(split=split, limit=EXAMPLE_SAMPLES)
    text = "".join(json.dumps(make(record), ensure_ascii=False) + "\n" for record in records)
    return text, dict(guide.example_options)


def _media_path(image: Any) -> tuple[str, str] | None:
    """(the name a model's file uses for an image, its path relative to MEDIA_ROOT), or None."""
    if isinstance(image, str):
        return image, image
    if isinstance(image, Mapping) and isinstance(image.get("url"), str) and image["url"].startswith(settings.MEDIA_URL):
        relative = image["url"][len(settings.MEDIA_URL):]
        return str(image.get("name") or relative), relative
    return None


def _media_file(media: Path, relative: str) -> Path | None:
    """The file a media-relative image path names: under MEDIA_ROOT, or MEDIA_ROOT/public (a benchmark may store
    its paths relative to the public folder); never one under MEDIA_ROOT/private (uploads)."""
    private = media / "private"
    for base in (media, media / "public"):
        path = (base / relative.lstrip("/")).resolve()
        if path.is_relative_to(media) and not path.is_relative_to(private) and path.is_file():
            return path
    return None


def _safe_zip_name(name: str) -> str | None:
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", "/", ".")]
    return None if not parts or ".." in parts else "/".join(parts)


def question_line(record: SampleRecord, *, with_images: bool) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """One line of questions.jsonl, and the (zip name, media-relative path) of its images to include. Image
    entries become their names (zip paths); the url of an image is never handed out with the questions."""
    inputs = dict(record.inputs)
    files: list[tuple[str, str]] = []
    if isinstance(inputs.get("images"), list):
        names = []
        for image in inputs["images"]:
            found = _media_path(image)
            name = _safe_zip_name(found[0]) if found else None
            if name is None:
                continue
            names.append(name)
            if with_images:
                files.append((name, found[1]))
        inputs["images"] = names
    line = {"key": record.key, "category": record.category, "group": record.group, "task": record.task,
            "inputs": inputs}
    return line, files


def _readme(split: Split, *, with_images: bool, samples: int, extra: list[str]) -> str:
    hidden = ("Its ground truth is hidden: this file holds the questions only; the images are named in "
              "questions.jsonl but not included.") if not with_images else \
        "Its ground truth is public; its images are included under the paths questions.jsonl names."
    more = "".join(f"{name}: see the format page (built from the inputs above only).\n" for name in extra)
    return (f"{split.benchmark.name}, split {split.name} version {split.version}: {samples} samples.\n{hidden}\n"
            "questions.jsonl: one line per sample: key, category, group, task and inputs (what the model is shown).\n"
            f"{more}How a prediction file looks: /leaderboard/{split.benchmark.slug}/format/\n")


RESERVED_NAMES = frozenset({"README.txt", "questions.jsonl"})


def extra_input_files(split: Split, records: list[SampleRecord]) -> list[tuple[str, str]]:
    """The plugin's extra files for the inputs download (`FormatGuide.input_files`), from the records `split_inputs`
    read (keys, labels, inputs: never ground truth); names that would clash with the zip's own files are left out."""
    make = plugin_for(split.benchmark.scorer).format.input_files_function()
    if make is None:
        return []
    found = []
    for name, text in make(records):
        safe = _safe_zip_name(name)
        if safe is not None and safe not in RESERVED_NAMES:
            found.append((safe, text))
    return found


def split_inputs_zip(*, split: Split) -> Path:
    """The zip of a split's inputs, built when its content changed since the last one."""
    with_images = not split.hidden_ground_truth
    records = split_inputs(split=split)
    lines = [question_line(r, with_images=with_images) for r in records]
    extra = extra_input_files(split, records)
    media = Path(settings.MEDIA_ROOT).resolve()
    sources = {name: _media_file(media, relative) for _, files in lines for name, relative in files}
    found = sorted((name, path.stat().st_size) for name, path in sources.items() if path is not None)
    content = [[line for line, _ in lines], found, [(name, hashlib.sha256(text.encode()).hexdigest())
                                                    for name, text in extra]]
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]
    folder = Path(settings.VAR_DIR) / "format-inputs"
    target = folder / f"{split.benchmark.slug}-{split.name}-v{split.version}-{'public' if with_images else 'q'}-{digest}.zip"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("README.txt", _readme(split, with_images=with_images, samples=len(records),
                                                   extra=[name for name, _ in extra]))
            archive.writestr("questions.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n"
                                                        for line, _ in lines))
            for name, text in extra:
                archive.writestr(name, text)
            for name, source in sorted(sources.items()):
                if source is not None:
                    archive.write(source, name, compress_type=zipfile.ZIP_STORED)  # images are compressed already
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target
