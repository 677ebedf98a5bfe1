"""Reads for scorer versions of a board (issue 29): which versions a split's scores were made under, the rows under
one of them, and what moved between two (leaderboard.core.diff)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Min, Subquery

from leaderboard.core.diff import DiffRow, VersionRow, version_diff
from leaderboard.selectors import (
    BoardData,
    board_scores_by_version,
    board_submissions,
    headline_key,
    scores_under_version,
)
from scoring.models import RescoreRun, Score, ScoreVersion, Split, Submission
from scoring.published import REPORTED_VERSION
from scoring.rescore import declared_version


@dataclass(frozen=True)
class ScorerVersion:
    version: str
    first_scored: object  # when the first score under it was made (datetime), for the order
    current: bool  # the version the plugin declares now (a score made now bears it)
    scores: int  # current scores under it
    kept: int  # replaced scores under it


def scorer_versions(*, split: Split, declared: str | None = None, data: BoardData | None = None
                    ) -> list[ScorerVersion]:
    """The scorer versions the scores on the split's board (`on_boards`: an upload held back until its phase closes
    is not there yet, nor the version only it bears) were made under, current or replaced, oldest first (a paper's
    rows are no version of the hub's scorer: left out). `declared`: the benchmark's version now, where the caller
    has read it (`declared_version`); `data`: the board's data as it is now, where the caller has read it."""
    # The current scores from the columns read with the board's rows (no query of their own: a grouped query over
    # every score of the split was 10-12 ms at 2,000 rows, issue 34); the scores they replaced, few, read here.
    counts, uploads = board_scores_by_version(split_id=split.pk, data=data)
    current = {version: {"first": first, "n": n} for version, (n, first) in counts.items()}
    kept: dict[str, dict] = {}
    for submission, version, scored_at in ScoreVersion.objects.filter(submission__split=split).order_by().values_list(
            "submission_id", "scorer_version", "scored_at"):
        if submission in uploads:
            row = kept.setdefault(version, {"first": scored_at, "n": 0})
            row["first"], row["n"] = min(row["first"], scored_at), row["n"] + 1
    declared = declared_version(split.benchmark) if declared is None else declared
    versions = []
    for version in set(current) | set(kept):
        if not version or version == REPORTED_VERSION:
            continue
        now, before = current.get(version), kept.get(version)
        firsts = [row["first"] for row in (now, before) if row]
        versions.append(ScorerVersion(version, min(firsts), version == declared, now["n"] if now else 0,
                                      before["n"] if before else 0))
    return sorted(versions, key=lambda v: (v.first_scored, v.version))


def version_rows(*, split: Split, version: str) -> list[VersionRow]:
    """The board's rows (one per submission, those `on_boards` shows now: an upload held back until its phase
    closes is not listed) under a scorer version, with their headline figure."""
    subs = board_submissions(split.pk).select_related("model_entry", "score").order_by("id")
    return [VersionRow(sub.pk, str(sub.model_entry) + (f" · {sub.run_set}" if sub.run_set else ""), score.overall,
                       sub.source == Submission.Source.REPORTED)
            for sub, score in scores_under_version(subs, version)]


def board_diff(*, split: Split, old: str, new: str) -> list[DiffRow]:
    return version_diff(version_rows(split=split, version=old), version_rows(split=split, version=new))


def comparable_version(*, split: Split, known: list[ScorerVersion] | None = None) -> str:
    """The scorer version a paper's reported rows are comparable to: the one they were loaded beside (the loader
    records it), else the benchmark's first version on this split (`known`: its `scorer_versions`, where the caller
    has read them already)."""
    # The first reported score by id, found as the least id of the split's reported scores: asked for as the first
    # of them in id order, the planner walked every score of every split by id (18 ms at 6,000 scores, issue 34).
    first = (Score.objects.filter(submission__split=split, submission__source=Submission.Source.REPORTED)
             .order_by().values("submission__split").annotate(first=Min("pk")).values("first"))
    found = (Score.objects.filter(pk=Subquery(first)).values_list("details__comparable_scorer_version", flat=True)
             .first())
    if found:
        return str(found)
    versions = scorer_versions(split=split) if known is None else known
    return versions[0].version if versions else ""


def headline_of(split: Split) -> str:
    return headline_key(split.benchmark.slug)


def recent_runs(*, split: Split, limit: int = 10) -> list[RescoreRun]:
    return list(RescoreRun.objects.filter(benchmark_id=split.benchmark_id).select_related("split", "started_by")
                .order_by("-created_at", "-id")[:limit])
