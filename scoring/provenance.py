"""Provenance on the site: the keys a score is stamped with when it is published (`score_keys`, called by
`scoring.pipeline.score_publish`), the provenance file a reader downloads (`provenance_document`, with the hidden-split
rules of `scoring.access`), and the site-side check of a provenance file against the stored score, or against the
stored file scored again (`provenance_verify`, `submission_rescore_differences`). The pure parts are in
`scoring.core.provenance`; docs/provenance.md says what each key means."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from scoring import access
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core import provenance as core
from scoring.core.contract import ScorerInput, ScoringResult, SubmissionRejected
from scoring.errors import ServiceRefusal
from scoring.models import Score, Split, Submission
from scoring.selectors import split_samples

User = AbstractBaseUser | AnonymousUser | None


def hub_version() -> str:
    """The hub's version a score is stamped with: the deployment's EBH_HUB_VERSION (set from `git describe` at
    build), else the version in the code (`scoring.core.provenance.HUB_VERSION`)."""
    return settings.HUB_VERSION or core.HUB_VERSION


def split_ground_truth_sha256(*, split: Split) -> str:
    """The split's ground-truth hash, computed once per split version and stored. A split version's samples do not
    change once scored (a correction is a new version), so the first hash stands; two workers computing it at once
    store the same value."""
    if split.ground_truth_sha256:
        return split.ground_truth_sha256
    digest = core.ground_truth_sha256(split_samples(split=split))
    Split.objects.filter(pk=split.pk, ground_truth_sha256="").update(ground_truth_sha256=digest)
    split.ground_truth_sha256 = digest
    return digest


def score_keys(*, submission: Submission, scorer_version: str) -> dict[str, Any]:
    """The provenance keys of a score of `submission` made now by `scorer_version` (`scoring.core.provenance.KEYS`,
    and what re-scoring needs: the upload's options and the model's name)."""
    split = submission.split
    try:
        options = plugin_for(split.benchmark.scorer).provenance_options_of(submission.options or {},
                                                                           submission.model_entry.name)
    except (UnknownBenchmark, SubmissionRejected):
        options = {}
    return core.ScoreKeys(
        benchmark=split.benchmark.slug, split=split.name, split_version=split.version,
        ground_truth_sha256=split_ground_truth_sha256(split=split), file_sha256=submission.sha256,
        file_size=submission.size_bytes, scorer_version=scorer_version, options=options, hub_version=hub_version(),
        upload_options=dict(submission.options or {}), model=submission.model_entry.name,
    ).as_dict()


def _shown_keys(keys: dict[str, Any], *, split: Split, user: User) -> dict[str, Any]:
    if split.hidden_ground_truth and not access.ground_truth_visible_to(split=split, user=user):
        return {**keys, "ground_truth_sha256": core.WITHHELD}
    return keys


def shown_provenance(*, score: Score, user: User) -> dict[str, Any]:
    """A score's provenance keys as this viewer may see them (the submission page, the API, the exports): a hidden
    split's ground-truth hash is for curators only."""
    return _shown_keys(dict(score.provenance or {}), split=score.submission.split, user=user)


def _figures(score: Score, *, hidden: bool, curator: bool) -> dict[str, Any]:
    readings = {key: {"overall": found.get("overall"), "breakdown": found.get("breakdown") or {}}
                for key, found in (score.readings or {}).items()
                if isinstance(found, dict) and (curator or not (hidden and found.get("tells_more")))}
    return {"overall": score.overall, "breakdown": dict(score.breakdown or {}), "readings": readings}


def provenance_document(*, submission: Submission, user: User) -> dict[str, Any]:
    """The provenance file of a submission's score, as this viewer may see it: the keys and the figures the boards
    show (no per-sample results, no details; a hidden split's ground-truth hash and any second reading that would
    tell more of its ground truth for curators only). Refused (404) where the viewer may not see the score, or it
    has no provenance (a paper's number; a score made before provenance was kept)."""
    if not access.submission_public_to(submission=submission, user=user):
        raise ServiceRefusal("No such submission.", status=404)
    return stored_document(submission=submission,
                           ground_truth_visible=access.ground_truth_visible_to(split=submission.split, user=user))


def stored_document(*, submission: Submission, ground_truth_visible: bool) -> dict[str, Any]:
    """The provenance file of the stored score, whole (`ground_truth_visible`: for curators and the site's own
    commands) or as others see it. Refused (404) where there is no score or it has no provenance."""
    score = Score.objects.filter(submission=submission).first()
    if submission.status != Submission.Status.SCORED or score is None:
        raise ServiceRefusal("This submission has no score yet, so no provenance.", status=404)
    if not score.provenance:
        why = ("a number reported in a paper, not scored here" if submission.source == Submission.Source.REPORTED
               else f"scored by {score.scorer_version or 'an earlier scorer'} before the hub kept provenance")
        raise ServiceRefusal(f"Submission #{submission.pk} has no provenance: {why}.", status=404)
    split = submission.split
    keys = dict(score.provenance)
    if split.hidden_ground_truth and not ground_truth_visible:
        keys["ground_truth_sha256"] = core.WITHHELD
    figures = _figures(score, hidden=split.hidden_ground_truth, curator=ground_truth_visible)
    return core.document(keys, figures, submission=submission.pk, source=submission.source,
                         url=f"/submissions/{submission.pk}/")


def submission_named(*, claimed: dict[str, Any]) -> Submission:
    """The submission a provenance file names ($.submission), or a refusal naming the key."""
    submission_id = claimed.get("submission")
    if not isinstance(submission_id, int) or isinstance(submission_id, bool):
        raise ServiceRefusal("The provenance file names no submission of this hub ($.submission).",
                             field="$.submission")
    submission = Submission.objects.select_related("split__benchmark", "model_entry").filter(pk=submission_id).first()
    if submission is None:
        raise ServiceRefusal(f"No such submission #{submission_id}.", status=404, field="$.submission")
    return submission


def provenance_read(*, text: str | bytes) -> dict[str, Any]:
    """A provenance file's content, or a 400 naming the JSON path of what is wrong."""
    try:
        return core.read_document(text)
    except core.ProvenanceInvalid as exc:
        raise ServiceRefusal(f"Not a provenance file: {exc.message}", field=exc.path or "provenance") from None


def provenance_verify(*, claimed: dict[str, Any], user: User) -> list[core.Difference]:
    """Every key where a provenance file differs from the score it names as stored here (keys and figures), as the
    viewer may see that score. An empty list: the file is this score's."""
    stored = provenance_document(submission=submission_named(claimed=claimed), user=user)
    return core.differences(claimed, stored, keys=(*core.COMPARED, "source"))


def submission_rescore(*, submission: Submission) -> ScoringResult:
    """Score a submission's stored file again, now, through its benchmark's scorer, without storing anything."""
    plugin = plugin_for(submission.split.benchmark.scorer)
    return plugin.score_function()(ScorerInput(
        file_path=Path(submission.file.path), samples=split_samples(split=submission.split),
        options=submission.options or {}, model=submission.model_entry.name))


def submission_rescore_differences(*, submission: Submission) -> list[core.Difference]:
    """Score the stored file again and compare keys and figures with the stored score's provenance: every key that
    differs (the file changed on disk, a new scorer, a new ground truth, other options, other figures)."""
    score = Score.objects.get(submission=submission)
    result = submission_rescore(submission=submission)
    digest, size = core.file_sha256(Path(submission.file.path))
    now = {**score_keys(submission=submission, scorer_version=result.scorer_version), "file_sha256": digest,
           "file_size": size, "figures": core.figures_of(result)}
    then = {**(score.provenance or {}), "figures": _figures(score, hidden=False, curator=True)}
    return core.differences(then, now, keys=tuple(k for k in core.COMPARED if k != "hub_version"))
