"""Provenance keys of a score: what a number was made from, so anyone holding the file and the split can make it again.

A score's keys are the prediction file's sha256, the scorer version, the split's version and a content hash of its
ground truth, the protocol options the benchmark's plugin reads from the upload and the site (`provenance_options`),
and the hub's version. A provenance document adds the figures; `differences` compares two documents key by key and
names every key that differs. Pure: no Django, no clock, no randomness.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from scoring.core.contract import SampleRecord, ScoringResult

FORMAT = "ebh-provenance/1"
# The hub's version when neither the deployment (EBH_HUB_VERSION) nor `git describe` says otherwise: bumped with
# every release that changes what a score means or how it is made outside the scorers' own versions.
HUB_VERSION = "ebh-0.29"
# The keys a score's provenance holds, in the order every page, export and the CLI show them.
KEYS = ("file_sha256", "file_size", "scorer_version", "split_version", "ground_truth_sha256", "options",
        "hub_version")
# What a hidden split's ground-truth hash reads as for those who may not see the ground truth: a hash over a few
# answers (a tiny split) would confirm guesses of them, so only curators see it.
WITHHELD = "withheld"
FIGURE_TOLERANCE = 1e-9  # figures compared within this (relative and absolute): the same scorer gives the same bits


def canonical_json(value: Any) -> bytes:
    """One byte string per JSON value: keys sorted, no spaces, UTF-8; the form every hash here is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def ground_truth_sha256(samples: Iterable[SampleRecord]) -> str:
    """A deterministic hash over a split's ground truth: each sample's key and ground truth, in key order, one
    canonical JSON line each. Positions, labels and inputs are left out: they are not what a score is judged on."""
    digest = hashlib.sha256()
    for key, truth in sorted((s.key, s.ground_truth) for s in samples):
        digest.update(canonical_json([key, truth]) + b"\n")
    return digest.hexdigest()


def file_sha256(path: Path, *, chunk: int = 1024 * 1024) -> tuple[str, int]:
    """A file's sha256 and size, read in chunks (bounded memory whatever the file's size)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


@dataclass(frozen=True)
class ScoreKeys:
    """The provenance keys of one score, and what is needed to score the file again (`upload_options`, `model`)."""

    benchmark: str
    split: str
    split_version: int
    ground_truth_sha256: str
    file_sha256: str
    file_size: int
    scorer_version: str
    options: Mapping[str, Any]
    hub_version: str
    upload_options: Mapping[str, Any]
    model: str

    def as_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "split": self.split, "split_version": self.split_version,
                "ground_truth_sha256": self.ground_truth_sha256, "file_sha256": self.file_sha256,
                "file_size": self.file_size, "scorer_version": self.scorer_version, "options": dict(self.options),
                "hub_version": self.hub_version, "upload_options": dict(self.upload_options), "model": self.model}


def figures_of(result: ScoringResult) -> dict[str, Any]:
    """The figures a provenance document states of a score: overall, breakdown and each second reading's overall
    and breakdown."""
    return {"overall": result.overall, "breakdown": dict(result.breakdown),
            "readings": {key: {"overall": f.overall, "breakdown": dict(f.breakdown)}
                         for key, f in result.readings.items()}}


def document(keys: Mapping[str, Any], figures: Mapping[str, Any], *, submission: int | None = None,
             source: str = "", url: str = "") -> dict[str, Any]:
    """A provenance file's content: the format, where the score lives, its keys and its figures."""
    out: dict[str, Any] = {"format": FORMAT}
    if submission is not None:
        out["submission"] = submission
    if source:
        out["source"] = source
    if url:
        out["url"] = url
    out.update({k: keys[k] for k in sorted(keys)})
    out["figures"] = dict(figures)
    return out


class ProvenanceInvalid(ValueError):
    """A provenance file that cannot be read as one; `path` is the JSON path of what is wrong."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


_REQUIRED: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("benchmark", str), ("split", str), ("split_version", int), ("ground_truth_sha256", str),
    ("file_sha256", str), ("scorer_version", str), ("options", dict), ("hub_version", str),
    ("upload_options", dict), ("model", str), ("figures", dict),
)


def read_document(text: str | bytes) -> dict[str, Any]:
    """A provenance file's content, checked: JSON, the format, every key with its type; ProvenanceInvalid naming
    the JSON path otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProvenanceInvalid(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ProvenanceInvalid("a provenance file is one JSON object", "$")
    if data.get("format") != FORMAT:
        raise ProvenanceInvalid(f"format is {data.get('format')!r}, not {FORMAT!r}", "$.format")
    for name, kind in _REQUIRED:
        if name not in data:
            raise ProvenanceInvalid("missing", f"$.{name}")
        if not isinstance(data[name], kind) or isinstance(data[name], bool):
            raise ProvenanceInvalid(f"must be {getattr(kind, '__name__', 'a value')}, not {type(data[name]).__name__}",
                                    f"$.{name}")
    figures = data["figures"]
    if not isinstance(figures.get("breakdown", {}), dict):
        raise ProvenanceInvalid("must be an object", "$.figures.breakdown")
    return data


@dataclass(frozen=True)
class Difference:
    key: str  # a dotted path: "file_sha256", "options.coord_mode", "figures.breakdown.TL"
    expected: Any  # what the provenance file says
    found: Any  # what the score (re-derived or stored) says

    def __str__(self) -> str:
        return f"{self.key}: the provenance says {_short(self.expected)}, found {_short(self.found)}"


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


_MISSING = object()


def _same_number(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=FIGURE_TOLERANCE, abs_tol=FIGURE_TOLERANCE)
    return False


def _walk(prefix: str, expected: Any, found: Any, out: list[Difference]) -> None:
    if isinstance(expected, Mapping) and isinstance(found, Mapping):
        for key in sorted(set(expected) | set(found), key=str):
            _walk(f"{prefix}.{key}" if prefix else str(key), expected.get(key, _MISSING), found.get(key, _MISSING),
                  out)
        return
    if expected is _MISSING or found is _MISSING:
        out.append(Difference(prefix, None if expected is _MISSING else expected, None if found is _MISSING else found))
        return
    if expected == found or _same_number(expected, found):
        return
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found) and all(
            a == b or _same_number(a, b) for a, b in zip(expected, found)):
        return
    out.append(Difference(prefix, expected, found))


COMPARED = (*KEYS, "benchmark", "split", "upload_options", "model", "figures")


def differences(claimed: Mapping[str, Any], found: Mapping[str, Any], *,
                keys: Sequence[str] = COMPARED, withheld_ok: bool = True) -> list[Difference]:
    """Every key where `found` differs from what `claimed` (a provenance file) says, as dotted paths, in `keys`
    order. A hidden split's withheld ground-truth hash on either side is not a difference (`withheld_ok`)."""
    out: list[Difference] = []
    for key in keys:
        a, b = claimed.get(key, _MISSING), found.get(key, _MISSING)
        if withheld_ok and key == "ground_truth_sha256" and WITHHELD in (a, b):
            continue
        _walk(key, a, b, out)
    return out


def report(found: Sequence[Difference]) -> str:
    """What `verify` prints: "same", or one line per differing key."""
    if not found:
        return "same"
    return "\n".join([f"differs: {len(found)} key(s)", *(f"  {d}" for d in found)])
