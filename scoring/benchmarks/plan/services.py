"""Writes for PLAN-Bench: the database verdict cache, the human judgement queue, recomputing a score when a person
decides, the judge audit, and importing items. Loads rows, calls scoring.benchmarks.plan.core, saves."""
from __future__ import annotations

import base64
import binascii
import os
import random
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable, Sequence

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.roles import is_reviewer
from scoring.benchmarks.plan.core.aggregate import Row, score_fields, summarise
from scoring.benchmarks.plan.core.engine import CacheEntry, CacheKey
from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.protocol import (
    BUILT_IN_MODEL_PROMPTS,
    BUILT_IN_PROMPTS,
    PROMPT_VERSION,
    JudgePrompts,
    ModelPrompts,
    PromptFileError,
    load_model_prompts,
    load_prompt_file,
)
from scoring.benchmarks.plan.core.types import DecidedBy, Item, ItemType, Outcome, Verdict
from scoring.benchmarks.plan.plugin import SLUG as PLAN_SLUG
from scoring.models import ChangeRecord, Sample, SampleScore, Score, Split, Submission
from scoring.split_media import PUBLIC_DIR, split_media_folder
from scoring.events import score_landed_event
from scoring.selectors import board_cache_invalidate
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanDecider, PlanJudgement, PlanVerdict
from scoring.benchmarks.plan.selectors import plan_answers_not_own, plan_own_submissions

PERSON_PROMPT_VERSION = "person"
PUBLIC_IMAGE_ROOT = PLAN_SLUG  # under MEDIA_ROOT/public, served at /media/public/
# A public split's image folder as `plan_items_import` names it: <split name>-v<version>.
PUBLIC_SPLIT_FOLDER = re.compile(r"(?P<name>[-\w]+)-v(?P<version>\d+)")


def hidden_copy(hidden_names: set[str], splits: list[tuple[str, int, bool]]) -> Callable[[str], bool]:
    """The stale-media sweep's test (`PublicMedia.hidden_copy`): a public file is a hidden split's image when its
    folder (`<split>-v<version>`) is that of a hidden split's name and version that no public split has."""
    hidden = {(name, version) for name, version, is_hidden in splits if is_hidden}
    public = {(name, version) for name, version, is_hidden in splits if not is_hidden}

    def is_hidden_copy(name: str) -> bool:
        match = PUBLIC_SPLIT_FOLDER.fullmatch(name.split("/", 1)[0])
        return bool(match) and (match["name"], int(match["version"])) in hidden - public

    return is_hidden_copy


# --- roles ------------------------------------------------------------------------------------------------


def plan_reviewer_check(user: AbstractBaseUser | None) -> None:
    """Only reviewers, curators and staff judge items and audit the judge."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied("Sign in as a reviewer or curator.")
    if not is_reviewer(user):
        raise PermissionDenied("Only reviewers and curators can judge PLAN-Bench answers.")


OWN_ANSWER_REFUSAL = (
    "You cannot judge this answer to '{item}': the same answer is in your own submission (one you uploaded, or one "
    "of a model entry you own). Another reviewer decides it, for every submission that shares it."
)


def plan_own_answer_check(*, user: AbstractBaseUser, row: PlanJudgement | PlanAuditCheck) -> None:
    """A reviewer judges no answer that appears in a submission they own (the rule: `plan_answers_not_own`, which
    the queue and the audit list filter by too). Every path that decides or audits calls this."""
    plan_reviewer_check(user)
    if not plan_answers_not_own(type(row).objects.filter(pk=row.pk), user=user).exists():
        raise PermissionDenied(OWN_ANSWER_REFUSAL.format(item=row.item_key))


# --- judge and cache --------------------------------------------------------------------------------------


def judge_client_from_settings() -> OpenAIJudgeClient | None:
    """The LLM judge when JUDGE_BASE_URL and JUDGE_MODEL are set; None means rules, then people."""
    if not (settings.JUDGE_BASE_URL and settings.JUDGE_MODEL):
        return None
    return OpenAIJudgeClient(
        base_url=settings.JUDGE_BASE_URL,
        model=settings.JUDGE_MODEL,
        api_key=settings.JUDGE_API_KEY,
        # Optional tuning (not environment settings): tests shorten the backoff.
        max_in_flight=getattr(settings, "JUDGE_MAX_IN_FLIGHT", 16),
        timeout=getattr(settings, "JUDGE_TIMEOUT", 60.0),
        max_retries=getattr(settings, "JUDGE_MAX_RETRIES", 4),
        backoff=getattr(settings, "JUDGE_BACKOFF", 0.5),
    )


def judge_prompts_from_settings() -> JudgePrompts:
    """The judge prompts this site uses: the file PLAN_JUDGE_PROMPT_FILE names (e.g. the paper's exact wording),
    else the built-in paraphrase. A file that cannot be read or used raises PromptFileError naming it."""
    return _prompt_file()[0]


def model_prompts_from_settings() -> ModelPrompts:
    """What evaluated models are asked (the prompt file's "model_prompts", else the built-in text)."""
    return _prompt_file()[1]


def _prompt_file() -> tuple[JudgePrompts, ModelPrompts]:
    path = settings.PLAN_JUDGE_PROMPT_FILE
    if not path:
        return BUILT_IN_PROMPTS, BUILT_IN_MODEL_PROMPTS
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise PromptFileError(f"PLAN_JUDGE_PROMPT_FILE {path}: cannot read it ({exc.strerror})") from None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if _PROMPT_CACHE.get("key") != key:
        text = Path(path).read_text(encoding="utf-8")
        source = f"PLAN_JUDGE_PROMPT_FILE {path}"
        _PROMPT_CACHE.update(key=key, value=(load_prompt_file(text, source=source),
                                             load_model_prompts(text, source=source, default=BUILT_IN_MODEL_PROMPTS)))
    return _PROMPT_CACHE["value"]


_PROMPT_CACHE: dict[str, Any] = {}


def format_prompts() -> list[tuple[str, str]]:
    """The format page's prompts (FormatGuide.prompts): the suffixes models are asked with and the judge prompt
    version verdicts are stamped with, as this site uses them now; a prompt file that cannot be used says so."""
    try:
        model, judge = model_prompts_from_settings(), judge_prompts_from_settings()
    except PromptFileError as exc:
        return [("Prompt file", f"cannot be used, so nothing is judged until it is fixed: {exc}")]
    model_source = ("supplied by this site" if model.label == "site"
                    else "this project's rendering of the paper's appendix B.1; its exact wording may differ")
    judge_source = ("a paraphrase of the paper's judge (appendix B.2), not its exact words"
                    if judge.label == BUILT_IN_PROMPTS.label else "supplied by this site")
    return [
        ("After every question", model.base),
        ("After a single-choice question", model.single_choice_suffix),
        ("After an open question", model.open_suffix),
        ("Model prompts", f"{model.label}#{model.digest}: {model_source}"),
        ("Judge prompt version", f"{judge.version}: {judge_source}; every verdict is stamped with it"),
    ]


def _verdict_of(row: PlanVerdict) -> Verdict:
    return Verdict(
        correct=row.correct,
        decided_by=DecidedBy(row.decided_by),
        judge=row.judge,
        prompt_version=row.prompt_version,
        raw_output=row.raw_output,
        extracted=row.extracted,
        note=row.note,
    )


class DatabaseVerdictCache:
    """scoring.benchmarks.plan.core's VerdictCache over PlanVerdict rows: a person's verdict first, then the judge's."""

    def lookup(self, keys: Sequence[CacheKey], *, judge: str | None, prompt_version: str) -> dict[CacheKey, Verdict]:
        wanted = set(keys)
        found: dict[CacheKey, Verdict] = {}
        fingerprints = sorted({f for f, _ in wanted})
        for start in range(0, len(fingerprints), 500):
            rows = PlanVerdict.objects.filter(item_fingerprint__in=fingerprints[start : start + 500]).filter(
                Q(decided_by=PlanDecider.PERSON) | Q(judge=judge or "", prompt_version=prompt_version)
            )
            for row in rows.order_by("created_at"):
                key = (row.item_fingerprint, row.output_hash)
                if key not in wanted:
                    continue
                if row.decided_by == PlanDecider.PERSON or key not in found:
                    found[key] = _verdict_of(row)
        return found

    def store(self, entries: Sequence[CacheEntry]) -> None:
        PlanVerdict.objects.bulk_create(
            [
                PlanVerdict(
                    item_key=e.item.id[:300],
                    item_fingerprint=e.item.fingerprint,
                    output_hash=e.output_hash,
                    output_text=e.output,
                    judge=e.verdict.judge[:200],
                    prompt_version=e.verdict.prompt_version,
                    decided_by=e.verdict.decided_by.value if e.verdict.decided_by else PlanDecider.MODEL,
                    correct=bool(e.verdict.correct),
                    extracted=e.verdict.extracted[:10],
                    raw_output=e.verdict.raw_output,
                    note=e.verdict.note,
                )
                for e in entries
                if e.verdict.decided
            ],
            ignore_conflicts=True,
        )


# --- human queue ------------------------------------------------------------------------------------------


def _item_snapshot(item: Item) -> dict:
    return {
        "question": item.question,
        "type": item.type.value,
        "options": dict(item.options or {}),
        "answer": item.answer,
        "answer_hint": item.answer_hint,
        "images": list(item.images),
    }


def plan_judgements_enqueue(*, outcomes: Iterable[Outcome]) -> int:
    """Put undecided (item, output) pairs in the human queue, once each; returns how many are new."""
    created = 0
    for o in outcomes:
        if o.verdict.decided:
            continue
        _, new = PlanJudgement.objects.update_or_create(
            item_fingerprint=o.item.fingerprint,
            output_hash=o.output_hash,
            create_defaults={
                "item_key": o.item.id[:300],
                "output_text": o.judged_text or "",  # the answer part: what the verdict is on
                "dimension": o.item.dimension,
                "subtask": o.item.subtask,
                "item": _item_snapshot(o.item),
                "reason": o.verdict.note,
                "raw_judge_output": o.verdict.raw_output,
            },
            defaults={"reason": o.verdict.note, "raw_judge_output": o.verdict.raw_output},
        )
        created += int(new)
    return created


def _rows_of_submission(submission_id: int) -> list[Row]:
    rows = []
    for s in SampleScore.objects.filter(submission_id=submission_id).only("task", "score", "details").order_by("index"):
        correct = None if s.score is None else s.score >= 0.5
        rows.append(Row(s.details.get("dimension", ""), s.task, ItemType(s.details.get("type", "open")), correct))
    return rows


def plan_score_recompute(*, submission_id: int) -> Score:
    """Recompute a submission's Score from its per-item verdicts through the same aggregation as the scorer."""
    score = Score.objects.get(submission_id=submission_id)
    was_final = bool(score.details.get("final"))
    fields = score_fields(summarise(_rows_of_submission(submission_id)), judge=score.details.get("judge", ""),
                          prompt_version=score.details.get("prompt_version") or PROMPT_VERSION)
    for name, value in fields.items():
        setattr(score, name, value)
    score.save(update_fields=list(fields))
    if fields["details"]["final"] and not was_final:
        # The same announcement as the scoring pipeline's: the boards compare, then the submitter hears.
        transaction.on_commit(lambda: score_landed_event(submission_id=submission_id))
    return score


def plan_judgement_decide(
    *, judgement_id: int, user: AbstractBaseUser, correct: bool, note: str = ""
) -> list[int]:
    """A person decides one queued (item, output): every submission waiting on it is updated and re-aggregated.

    Refused (PermissionDenied) to anyone but a reviewer, and to a reviewer whose own submission has this answer.
    Returns the ids of the submissions whose scores were recomputed.
    """
    plan_reviewer_check(user)
    with transaction.atomic():
        judgement = PlanJudgement.objects.select_for_update().get(pk=judgement_id)
        plan_own_answer_check(user=user, row=judgement)
        if judgement.status == PlanJudgement.Status.DECIDED:
            raise ValidationError("This answer has already been judged.")
        verdict, _ = PlanVerdict.objects.update_or_create(
            item_fingerprint=judgement.item_fingerprint,
            output_hash=judgement.output_hash,
            judge=user.get_username()[:200],
            prompt_version=PERSON_PROMPT_VERSION,
            defaults={
                "item_key": judgement.item_key,
                "output_text": judgement.output_text,
                "decided_by": PlanDecider.PERSON,
                "decided_by_user": user,
                "correct": correct,
                "note": note,
            },
        )
        judgement.status = PlanJudgement.Status.DECIDED
        judgement.verdict = verdict
        judgement.decided_at = timezone.now()
        judgement.save(update_fields=["status", "verdict", "decided_at"])
        return _apply_verdict(judgement, verdict)


def plan_judgements_reconcile() -> list[int]:
    """Apply people's verdicts to items still waiting on an already decided judgement.

    This happens when a person decides while a submission with the same output is being scored (the scorer read
    the cache before the decision and saved after it). Returns the ids of the submissions recomputed.
    """
    decided = {
        j.key: j
        for j in PlanJudgement.objects.filter(status=PlanJudgement.Status.DECIDED, verdict__isnull=False)
        .select_related("verdict", "verdict__decided_by_user")
    }
    waiting_keys = set(
        SampleScore.objects.filter(score__isnull=True, details__has_key="judgement_key")
        .values_list("details__judgement_key", flat=True)
        .distinct()
    )
    updated: set[int] = set()
    for key in sorted(waiting_keys & set(decided)):
        with transaction.atomic():
            updated.update(_apply_verdict(decided[key], decided[key].verdict))
    return sorted(updated)


def _apply_verdict(judgement: PlanJudgement, verdict: PlanVerdict) -> list[int]:
    """Settle the items waiting on `judgement` with `verdict`, except those of submissions its decider owns.

    The decide check refuses a reviewer whose submission has the answer, but their submission may save the answer
    as waiting after the check (it was being scored meanwhile): such an item stays waiting and the judgement is
    open again, for another reviewer. Each submission changed gets a ChangeRecord: who decided, what, and the score
    before and after."""
    waiting = SampleScore.objects.filter(details__judgement_key=judgement.key, score__isnull=True)
    decider = verdict.decided_by_user
    if decider is not None:
        own = waiting.filter(submission__in=plan_own_submissions(decider))
        if own.exists():
            judgement.status = PlanJudgement.Status.OPEN
            judgement.reason = (f"{decider.get_username()} decided it, and their own submission #"
                                f"{own.values_list('submission_id', flat=True).first()} has the same answer: "
                                "another reviewer decides it for that one.")
            judgement.save(update_fields=["status", "reason"])
        waiting = waiting.exclude(submission__in=plan_own_submissions(decider))
    waiting = waiting.select_for_update()
    submissions: set[int] = set()
    for sample_score in waiting:
        details = dict(sample_score.details)
        details.update(
            decided_by=PlanDecider.PERSON.value,
            judge=verdict.judge,
            prompt_version=verdict.prompt_version,
            note=verdict.note or details.get("note", ""),
            decided_at=timezone.now().isoformat(),
        )
        # The judge's last raw reply stays in details["raw_judge_output"] for the audit trail.
        sample_score.details = details
        sample_score.score = float(verdict.correct)
        sample_score.outcome = "correct" if verdict.correct else "wrong"
        sample_score.components = {"correct": verdict.correct}
        sample_score.save(update_fields=["details", "score", "outcome", "components"])
        submissions.add(sample_score.submission_id)
    decision = {"judgement": judgement.pk, "item": judgement.item_key, "correct": verdict.correct,
                "verdict": verdict.pk}
    for submission_id in sorted(submissions):
        before = Score.objects.only("overall", "details").get(submission_id=submission_id)
        after = plan_score_recompute(submission_id=submission_id)
        ChangeRecord.objects.create(
            subject=ChangeRecord.Subject.SUBMISSION, object_id=submission_id, user=decider,
            changes={"plan_judgement": [None, decision], "overall": [before.overall, after.overall],
                     "undecided": [before.details.get("undecided"), after.details.get("undecided")]},
        )
    return sorted(submissions)


# --- judge audit ------------------------------------------------------------------------------------------


def plan_audit_draw(*, split: Split, per_subtask: int = 5, seed: int = 0, user: AbstractBaseUser | None = None) -> int:
    """Draw up to `per_subtask` rule/model verdicts of each subtask (hence each dimension) for people to verify.

    Candidates are the distinct (item, output, judge) verdicts in the split's scored submissions; the draw is
    seeded, and verdicts already drawn are not drawn again. Returns how many checks were created.
    """
    plan_reviewer_check(user)
    drawn = set(
        PlanAuditCheck.objects.filter(split=split).values_list("item_fingerprint", "output_hash", "judge", "prompt_version")
    )
    strata: dict[str, dict[tuple, SampleScore]] = defaultdict(dict)
    scores = (
        SampleScore.objects.filter(submission__split=split, submission__status=Submission.Status.SCORED)
        .filter(details__decided_by__in=[PlanDecider.RULE.value, PlanDecider.MODEL.value])
        .exclude(outcome="missing")
        .only("sample_id", "key", "task", "score", "details")
        .order_by("submission_id", "index")
    )
    for s in scores.iterator(chunk_size=2000):
        d = s.details
        key = (d.get("fingerprint"), d.get("output_hash"), d.get("judge", ""), d.get("prompt_version", ""))
        if key not in drawn and None not in key:
            strata[s.task].setdefault(key, s)
    rng = random.Random(f"plan-audit/{split.pk}/{seed}")
    new: list[PlanAuditCheck] = []
    for subtask in sorted(strata):
        candidates = list(strata[subtask].items())
        for key, s in rng.sample(candidates, min(per_subtask, len(candidates))):
            d = s.details
            new.append(
                PlanAuditCheck(
                    split=split,
                    sample_id=s.sample_id,
                    item_key=s.key,
                    item_fingerprint=key[0],
                    output_hash=key[1],
                    output_text=d.get("output", ""),
                    dimension=d.get("dimension", ""),
                    subtask=subtask,
                    judge_decided_by=d["decided_by"],
                    judge=key[2],
                    prompt_version=key[3],
                    judge_correct=bool(s.score),
                    raw_judge_output=d.get("raw_judge_output", ""),
                    draw=f"seed {seed}",
                )
            )
    PlanAuditCheck.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def plan_audit_record(*, check_id: int, user: AbstractBaseUser, correct: bool, note: str = "") -> PlanAuditCheck:
    """A person's own verdict on a drawn check; agreement compares it with the judge's. Nobody audits a verdict on
    their own answer (it shapes the board's judge agreement)."""
    plan_reviewer_check(user)
    check = PlanAuditCheck.objects.get(pk=check_id)
    plan_own_answer_check(user=user, row=check)
    check.human_correct = correct
    check.reviewer = user
    check.reviewer_note = note
    check.reviewed_at = timezone.now()
    check.save(update_fields=["human_correct", "reviewer", "reviewer_note", "reviewed_at"])
    board_cache_invalidate(split_id=check.split_id)  # the board shows the agreement
    return check


# --- import -----------------------------------------------------------------------------------------------

ImageSource = Callable[[str], bytes | None]


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
