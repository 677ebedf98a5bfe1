"""Freezing a board into a citable snapshot (issue 29): check, then write once. The rows are the board's own export
(the JSON and CSV a reader downloads from the live board under the same split version, scorer version and filters),
stored byte for byte with the JSON's SHA-256; nothing recomputes them afterwards, so a re-score never changes a
snapshot. A snapshot remembers which score each row came from, to say when a newer one exists."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.roles import is_curator
from leaderboard.core.board import BoardQuery, csv_cell, export_table
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import headline_key
from leaderboard.services import board_view_build
from scoring.benchmarks import board_for
from scoring.errors import ServiceRefusal
from scoring.models import Benchmark, Score, ScoreVersion, Split

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
SNAPSHOT_FORMAT = 1  # the JSON document's layout version


def snapshot_create_check(*, user: AbstractBaseUser, benchmark: Benchmark, name: str) -> str:
    if not is_curator(user):
        raise ServiceRefusal("Only curators freeze a board.", status=403)
    name = name.strip().lower() or timezone.now().date().isoformat()
    if not NAME.match(name):
        raise ServiceRefusal(f"'{name[:80]}' is not a snapshot name: lower-case letters, digits and dashes, up to 80 "
                             "(e.g. 2026-12-03 or neurips-camera-ready).", field="name")
    if BoardSnapshot.objects.filter(benchmark=benchmark, name=name).exists():
        raise ServiceRefusal(f"A snapshot named '{name}' of {benchmark.slug} exists already; snapshots never change, "
                             "so choose another name.", status=409, field="name")
    return name


def snapshot_create(*, user: AbstractBaseUser, benchmark: Benchmark, split: Split, query: BoardQuery, name: str = "",
                    title: str = "") -> BoardSnapshot:
    """Freeze the board as `query` shows it (its filters and scorer version) on this split version."""
    name = snapshot_create_check(user=user, benchmark=benchmark, name=name)
    spec = board_for(benchmark.slug)
    view, _, _ = board_view_build(split=split, spec=spec, query=query)
    header, body = export_table(view, {spec.columns[0].key: headline_key(benchmark.slug)})
    frozen_at = timezone.now()
    params = urlencode(query.as_params())
    document = json.dumps({
        "format": SNAPSHOT_FORMAT,
        "benchmark": benchmark.slug,
        "snapshot": name,
        "title": title[:200],
        "split": split.name,
        "split_version": split.version,
        "scorer_version": query.scorer or "",
        "scores": "the scores made under that scorer version" if query.scorer else
                  "each row's current score when frozen (its version in scorer_versions)",
        "filters": params,
        "frozen_at": frozen_at.isoformat(),
        "columns": header,
        "rows": [dict(zip(header, line)) for line in body],
    }, indent=1, sort_keys=False)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for line in body:
        writer.writerow([csv_cell(v) for v in line])
    ids = [row.submission_id for row in view.rows]
    scores = {str(s.submission_id): [s.scorer_version, s.created_at.isoformat()]
              for s in Score.objects.filter(submission_id__in=ids)}
    try:
        with transaction.atomic():
            return BoardSnapshot.objects.create(
                benchmark=benchmark, split=split, name=name, title=title[:200], scorer_version=query.scorer or "",
                query=params[:1000], document=document, csv=buffer.getvalue(),
                content_sha256=hashlib.sha256(document.encode()).hexdigest(),
                csv_sha256=hashlib.sha256(buffer.getvalue().encode()).hexdigest(), scores=scores, created_by=user)
    except IntegrityError as exc:  # a second curator froze the same name a moment ago
        raise ServiceRefusal(f"A snapshot named '{name}' of {benchmark.slug} exists already.", status=409,
                             field="name") from exc


@dataclass(frozen=True)
class NewerScore:
    submission_id: int
    model: str
    frozen_version: str
    current_version: str
    current_overall: float | None


def snapshot_newer_scores(*, snapshot: BoardSnapshot) -> list[NewerScore]:
    """The rows whose submission has a newer score than the one frozen (a re-score replaced it): read, never
    written into the snapshot."""
    frozen = snapshot.scores or {}
    ids = [int(pk) for pk in frozen]
    replaced = set(ScoreVersion.objects.filter(submission_id__in=ids).values_list("submission_id", flat=True))
    out = []
    for score in Score.objects.filter(submission_id__in=ids).select_related("submission__model_entry"):
        version, made = frozen[str(score.submission_id)]
        if score.created_at.isoformat() != made and score.submission_id in replaced:
            out.append(NewerScore(score.submission_id, str(score.submission.model_entry), version,
                                  score.scorer_version, score.overall))
    return sorted(out, key=lambda n: n.submission_id)


def snapshot_frozen_on(snapshot: BoardSnapshot) -> date:
    return timezone.localdate(snapshot.created_at)
