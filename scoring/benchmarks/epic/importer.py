"""Import an EPIC-Bench split from the toolkit's raw dataset layout (spec section 1) into Split/Sample rows.

Every `*_mask_rle.json` under `EPIC_Bench/` is one sample (sorted path order), keyed by its path from the
`EPIC_Bench` parent. The GT JSON is checked with the scoring core (every mask must decode) and stored in
`Sample.ground_truth`; images and overlays are copied once, content-addressed, under
MEDIA_ROOT/public/epic-bench/img/ (a split with hidden ground truth: MEDIA_ROOT/hidden/<benchmark>/<split>/img/,
served only to those allowed to see the split, see `scoring/split_media.py`), and listed in `Sample.inputs` with
the prompt's description lines (core/prompts.py, the toolkit converters' rules). Re-importing the same layout changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from django.conf import settings
from django.db import transaction

from scoring.benchmarks.epic.core.geometry import union_of_instances
from scoring.benchmarks.epic.core.prompts import description_lines
from scoring.benchmarks.epic.core.raw import task_from_path
from scoring.benchmarks.epic.core.scorer import GroundTruth
from scoring.benchmarks.epic.core.taxonomy import GT_FIELDS, LEAF_BY_NAME, OVERLAY_SUFFIX, PR, Leaf
from scoring.benchmarks.epic.plugin import SLUG as EPIC_SLUG
from scoring.models import Benchmark, Sample, Split
from scoring.split_media import HIDDEN_DIR, media_url, split_media_folder

ROOT_FOLDER = "EPIC_Bench"
MEDIA_SUBDIR = "public/epic-bench/img"
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


# A hidden split's image as `epic_split_import` names it: hidden/<benchmark>/<split>/img/<xx>/<sha256>.<ext>.
HIDDEN_IMAGE = re.compile(rf"{HIDDEN_DIR}/[-\w]+/[-\w]+/img/(?P<key>[^/]+/[^/]+)")


def hidden_copy(hidden_names: set[str], splits: list[tuple[str, int, bool]]) -> Callable[[str], bool]:
    """The stale-media sweep's test (`PublicMedia.hidden_copy`): images are content-addressed
    (`img/<xx>/<sha256>.<ext>`), so a public file is a hidden split's image when a hidden split names the same file
    under its hidden folder."""
    keys = {match["key"] for name in hidden_names if (match := HIDDEN_IMAGE.fullmatch(name))}
    return lambda name: name.startswith("img/") and name[len("img/"):] in keys


class ImportError_(Exception):
    """The path is not an EPIC-Bench layout."""


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    images_stored: int = 0
    problems: list[str] = field(default_factory=list)


def layout_parent(path: Path) -> Path:
    """The folder that holds `EPIC_Bench/` (the path may name either)."""
    path = path.resolve()
    if path.name == ROOT_FOLDER and path.is_dir():
        return path.parent
    if (path / ROOT_FOLDER).is_dir():
        return path
    raise ImportError_(f"{path} is neither an {ROOT_FOLDER}/ folder nor the folder that holds one")


def _leaf_of(key: str) -> Leaf | None:
    category, task_type = task_from_path(key)
    return LEAF_BY_NAME.get(task_type or "") if category else None


def check_ground_truth(gt: Any, leaf: Leaf) -> list[str]:
    """What is wrong with one GT JSON for its leaf: masks that do not decode, missing scored fields."""
    if not isinstance(gt, dict):
        return ["the file is not a JSON object"]
    problems = []
    if not isinstance(gt.get("mask_annotation"), dict):
        problems.append("field 'mask_annotation': missing or not an object")
    fam = "TL" if leaf.category == "TargetLocalization" else leaf.group_code
    names = GT_FIELDS[fam]
    truth = GroundTruth(gt, None)
    mask_fields = [n for n in (names.localization, names.path, names.target_area) if n]
    for name in mask_fields:
        value = truth.get(name)
        if value in (None, [], {}):
            if name in (names.path, names.target_area) or (names.count and truth.count(names.count) != 0):
                problems.append(f"field '{name}': no mask")
            continue
        mask, why = union_of_instances(value)
        if mask is None:
            problems.append(f"field '{name}': does not decode ({'; '.join(why)})")
        elif why:
            problems.append(f"field '{name}': " + "; ".join(why))
    if names.count:
        try:
            if truth.count(names.count) is None:
                problems.append(f"field '{names.count}': missing or not a number")
        except (OverflowError, ValueError):
            problems.append(f"field '{names.count}': not a finite number")
    if fam == PR and truth.feasibility(names.feasibility) is None:
        problems.append("field 'placement_feasible': missing or not a boolean")
    return problems


def _image_file(folder: Path, stem: str) -> Path | None:
    for ext in IMAGE_EXTENSIONS:
        candidate = folder / f"{stem}_image{ext}"
        if candidate.is_file():
            return candidate
    return None


def model_images(gt_file: Path, leaf: Leaf) -> tuple[list[Path], list[str]]:
    """The files fed to the model, in order (spec section 1.2), and what is missing."""
    folder = gt_file.parent
    base = gt_file.name[: -len("_mask_rle.json")]
    code = leaf.group_code
    problems: list[str] = []
    stems = base.split("__", 1) if code == "VM" else [base]
    if code == "VM" and len(stems) != 2:
        return [], [f"{gt_file.name}: a VisualMatching GT must be named <A>__<B>_mask_rle.json"]
    found: list[Path] = []
    first = _image_file(folder, stems[0])
    if first is None:
        problems.append(f"{folder.name}/{stems[0]}_image.* not found")
    else:
        found.append(first)
    if code in OVERLAY_SUFFIX:
        overlay = folder / f"{stems[0]}{OVERLAY_SUFFIX[code]}"
        if overlay.is_file():
            found.append(overlay)
        else:
            problems.append(f"{folder.name}/{overlay.name} not found")
    if code == "VM":
        second = _image_file(folder, stems[1])
        if second is None:
            problems.append(f"{folder.name}/{stems[1]}_image.* not found")
        else:
            found.append(second)
    return found, problems


def store_image(data: bytes, suffix: str, *, folder: str = MEDIA_SUBDIR) -> tuple[str, bool]:
    """Copy bytes once under MEDIA_ROOT/`folder` by content hash; returns (relative name, newly written)."""
    digest = hashlib.sha256(data).hexdigest()
    name = f"{folder}/{digest[:2]}/{digest}{suffix.lower()}"
    target = Path(settings.MEDIA_ROOT) / name
    if target.exists():
        return name, False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return name, True


def epic_split_import(*, path: Path, split_name: str, hidden: bool, version: int = 1, description: str = "",
                      benchmark_slug: str = EPIC_SLUG) -> tuple[Split, ImportReport]:
    """Create or update the split's samples from the raw layout; samples with a broken GT are skipped and reported."""
    parent = layout_parent(Path(path))
    benchmark = Benchmark.objects.get(slug=benchmark_slug)
    report = ImportReport()
    gt_files = sorted((parent / ROOT_FOLDER).rglob("*_mask_rle.json"))
    # A hidden split's images are kept out of public media (its samples are the hidden test set).
    try:
        folder = (split_media_folder(benchmark_slug=benchmark_slug, split_name=split_name, hidden=True) + "/img"
                  if hidden else MEDIA_SUBDIR)
    except ValueError as exc:
        raise ImportError_(str(exc)) from exc
    rows: list[dict[str, Any]] = []
    for gt_file in gt_files:
        key = gt_file.relative_to(parent).as_posix()
        leaf = _leaf_of(key)
        if leaf is None:
            report.problems.append(f"{key}: not under a known task folder; skipped")
            continue
        try:
            gt = json.loads(gt_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            report.problems.append(f"{key}: not valid JSON ({exc}); skipped")
            continue
        gt_problems = check_ground_truth(gt, leaf)
        if gt_problems:
            report.problems.extend(f"{key}: {p}; skipped" for p in gt_problems)
            continue
        files, missing = model_images(gt_file, leaf)
        report.problems.extend(f"{key}: {m}" for m in missing)
        images = []
        for file in files:
            name, new = store_image(file.read_bytes(), file.suffix, folder=folder)
            report.images_stored += int(new)
            images.append({"name": file.relative_to(parent).as_posix(), "url": media_url(name)})
        rows.append({"key": key, "category": leaf.category, "group": leaf.group, "task": leaf.name,
                     "inputs": {"images": images, "prompt": description_lines(gt, leaf), "by_type": leaf.by_type},
                     "ground_truth": gt})
    with transaction.atomic():
        split, created = Split.objects.get_or_create(
            benchmark=benchmark, name=split_name, version=version,
            defaults={"hidden_ground_truth": hidden, "description": description},
        )
        if not created and (split.hidden_ground_truth != hidden or (description and split.description != description)):
            split.hidden_ground_truth = hidden
            split.description = description or split.description
            split.save(update_fields=["hidden_ground_truth", "description"])
        existing = {s.key: s for s in Sample.objects.filter(split=split)}
        to_create, to_update = [], []
        for position, row in enumerate(rows):
            sample = existing.get(row["key"])
            if sample is None:
                to_create.append(Sample(split=split, position=position, **row))
                continue
            changed = False
            for name, value in (("position", position), *row.items()):
                if getattr(sample, name) != value:
                    setattr(sample, name, value)
                    changed = True
            (to_update.append(sample) if changed else None)
        Sample.objects.bulk_create(to_create, batch_size=500)
        if to_update:
            Sample.objects.bulk_update(to_update, ["position", "category", "group", "task", "inputs", "ground_truth"],
                                       batch_size=500)
        report.created, report.updated = len(to_create), len(to_update)
        report.unchanged = len(rows) - report.created - report.updated
    return split, report
