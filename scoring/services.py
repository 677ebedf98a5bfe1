"""Writes for submissions: check an upload, then store it and enqueue its scoring (`scoring.pipeline` scores it).

Every upload, from the web form, the API or the command-line client, passes `submission_create`, which refuses a
file the scorer would refuse before anything is stored (`scoring.precheck.submission_file_check`): no quota used,
no submission row, no model entry."""
from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from datetime import timezone as dt_timezone
from typing import Any, Callable, NoReturn

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile, UploadedFile
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from accounts.roles import is_curator
from scoring.core.names import name_invisible_characters, names_look_alike
from scoring.errors import SubmissionError
from scoring.models import Benchmark, ChangeRecord, ModelEntry, Phase, Split, Submission
from scoring.phases import phase_private_check
from scoring.pipeline import submission_score
from scoring.precheck import submission_check, submission_file_check, submitter_check
from scoring.quota import submission_quota_claim
from scoring.selectors import board_cache_invalidate, model_entry_editable_by
from scoring.tasks import submission_enqueue

log = logging.getLogger(__name__)


def split_resolve(*, benchmark_slug: str, split_name: str | None) -> Split:
    """The split a request names: the benchmark's default split (newest version) when no name is given."""
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        known = ", ".join(Benchmark.objects.values_list("slug", flat=True))
        raise SubmissionError(f"Unknown benchmark '{benchmark_slug}'. Known: {known}.", status=404, field="benchmark")
    splits = benchmark.splits.order_by("-version")
    split = splits.filter(name=split_name).first() if split_name else splits.filter(is_default=True).first()
    if split is None:
        known = ", ".join(sorted(set(benchmark.splits.values_list("name", flat=True))))
        raise SubmissionError(
            f"Unknown split '{split_name}' for {benchmark.slug}. Known: {known or 'none'}.", status=404, field="split"
        )
    return split


def model_entry_slug(name: str, thinking: str) -> str:
    """A free slug for a model variant: the name, with "-thinking" for thinking variants, numbered if taken."""
    base = slugify(f"{name}-thinking" if thinking == ModelEntry.Thinking.YES else name)[:200] or "model"
    slug, n = base, 1
    while ModelEntry.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def model_entry_for_upload(*, user: AbstractBaseUser, name: str, fields: dict[str, Any] | None = None) -> ModelEntry:
    """The entry an upload goes to: the user's own entry of that name, or a new one owned by the user (unsaved:
    `submission_create` saves it with the submission)."""
    name = name.strip()
    if not name:
        raise SubmissionError("A model name is required.", field="model")
    fields = {k: v for k, v in (fields or {}).items() if v not in (None, "")}
    thinking = fields.pop("thinking", "")
    # A new entry is what its owner says it is: not open-source unless they chose it (the model's default).
    kind = fields.pop("kind", ModelEntry.Kind.UNSTATED)
    entry = ModelEntry.objects.filter(name=name, thinking=thinking).first()
    if entry is None:
        model_entry_name_check(user=user, name=name)
        return ModelEntry(name=name, slug=model_entry_slug(name, thinking), thinking=thinking, owner=user, kind=kind,
                          **fields)
    model_entry_use_check(user=user, entry=entry)
    return entry


def _published_entries():
    """Entries of the papers' models: no owner, reported rows on a board."""
    return ModelEntry.objects.filter(owner__isnull=True, submissions__source=Submission.Source.REPORTED).distinct()


def published_name_like(name: str) -> str | None:
    """The published model's name that `name` looks like (letter case, width, look-alike letters, invisible
    characters: `scoring.core.names`), or None."""
    published = _published_entries().values_list("name", flat=True).order_by("name")
    return next((other for other in published if names_look_alike(name, other)), None)


def _refuse_published_name(name: str) -> NoReturn:
    raise SubmissionError(
        f"'{name}' is the name of a published model: its paper results are on the boards, and an entry of yours "
        f"would stand beside them as if it were the same model. Choose a name of your own (e.g. '{name} (your lab)').",
        status=403,
        field="model",
    )


def model_entry_name_visible_check(*, name: str) -> None:
    """A model name shows all it holds: no zero-width, bidi control or other invisible characters."""
    invisible = name_invisible_characters(name)
    if invisible:
        found = "; ".join(c.description for c in invisible)
        raise SubmissionError(
            f"The model name holds invisible characters ({found}): they make a name look like another or show "
            "reversed. Type the name with visible characters only.",
            field="model",
        )


def model_entry_name_check(*, user: AbstractBaseUser, name: str) -> None:
    """A new entry's name: visible characters only; and names of published models are reserved: a new entry by a
    name that looks like one (another thinking mode, letter case, look-alike letters) is refused unless a curator
    makes it."""
    model_entry_name_visible_check(name=name)
    published = published_name_like(name)
    if published is not None and not is_curator(user):
        _refuse_published_name(published)


def model_entry_use_check(*, user: AbstractBaseUser, entry: ModelEntry) -> None:
    """Refuse an upload to someone else's entry, or to a published model's entry unless the user is a curator."""
    if entry.owner_id == user.pk or user.is_staff:
        return
    if entry.owner_id is None and _published_entries().filter(pk=entry.pk).exists():
        if is_curator(user):
            return
        _refuse_published_name(entry.name)
    raise SubmissionError(
        f"The model entry '{entry}' belongs to someone else; choose another name.", status=403, field="model"
    )


def model_entry_save(*, user: AbstractBaseUser, entry: ModelEntry) -> ModelEntry:
    """Save a new entry under its unique constraints (name + thinking, slug), inside the upload's transaction.

    A parallel upload may have created the same variant since `model_entry_for_upload` looked: that entry is then
    used if the user may (else the 403 of `model_entry_use_check`). A slug taken meanwhile by another name is
    replaced by the next free one. Never an IntegrityError."""
    for _ in range(5):
        try:
            with transaction.atomic():  # a savepoint: the upload's transaction goes on after a conflict
                entry.save(force_insert=True)
            return entry
        except IntegrityError:
            existing = ModelEntry.objects.filter(name=entry.name, thinking=entry.thinking).first()
            if existing is not None:
                model_entry_use_check(user=user, entry=existing)
                return existing
            entry.slug = model_entry_slug(entry.name, entry.thinking)
    raise SubmissionError("The model entry could not be created for a conflict; try again.", status=409, field="model")


# What an owner or a curator may change of a model entry (its name and thinking mode name the variant: not here).
MODEL_ENTRY_EDITABLE = ("organisation", "kind", "parameters_b", "thinking_budget", "input_resolution", "open_weights",
                        "paper_url", "code_url", "model_url", "description")


def _audit(*, subject: str, object_id: int, user: AbstractBaseUser | None, changes: dict[str, list[Any]]) -> None:
    ChangeRecord.objects.create(subject=subject, object_id=object_id, user=user if user and user.pk else None,
                                changes=changes)


def _audit_entry_created(*, user: AbstractBaseUser, entry: ModelEntry, submission: Submission) -> None:
    """A model entry made by an upload, recorded like its later edits: every fact it was made with, from nothing."""
    facts = {name: getattr(entry, name) for name in ("name", "thinking", "kind", *MODEL_ENTRY_EDITABLE)}
    changes = {"created": [None, f"on upload of submission #{submission.pk}"],
               **{name: [None, value] for name, value in facts.items() if value not in (None, "")}}
    _audit(subject=ChangeRecord.Subject.MODEL_ENTRY, object_id=entry.pk, user=user, changes=changes)


def _boards_of_entry_invalidate(entry: ModelEntry) -> None:
    for split_id in set(entry.submissions.values_list("split_id", flat=True)):
        board_cache_invalidate(split_id=split_id)


def model_entry_update(*, user: AbstractBaseUser, entry: ModelEntry, values: dict[str, Any]) -> dict[str, list[Any]]:
    """Change a model entry's editable fields (its owner, or a curator), with a `ChangeRecord` of what changed;
    returns {field: [before, after]} (empty: nothing changed, nothing recorded). The boards showing it refresh."""
    if not model_entry_editable_by(entry=entry, user=user):
        raise SubmissionError(f"Only the owner of '{entry}' and curators may edit it.", status=403)
    unknown = sorted(set(values) - set(MODEL_ENTRY_EDITABLE))
    if unknown:
        raise SubmissionError(f"Not editable here: {', '.join(unknown)}.", field=unknown[0])
    changes = {name: [getattr(entry, name), value] for name, value in values.items() if getattr(entry, name) != value}
    if not changes:
        return {}
    with transaction.atomic():
        for name, (_, value) in changes.items():
            setattr(entry, name, value)
        fields = list(changes)
        if any(name in (entry.fact_sources or {}) for name in changes):  # the paper's source no longer applies
            entry.fact_sources = {k: v for k, v in entry.fact_sources.items() if k not in changes}
            fields.append("fact_sources")
        entry.save(update_fields=fields)
        _audit(subject=ChangeRecord.Subject.MODEL_ENTRY, object_id=entry.pk, user=user, changes=changes)
    _boards_of_entry_invalidate(entry)
    return changes


def submission_visibility_set(*, user: AbstractBaseUser, submission: Submission, visibility: str) -> bool:
    """Make an upload public (on the boards), private (scored, its submitter's only) or withdrawn (on no board, for
    good: its submitter cannot bring it back; a curator can). Its submitter or a curator; recorded; returns whether
    it changed. The split's board refreshes."""
    curator = is_curator(user)
    if submission.submitter_id != user.pk and not curator:
        raise SubmissionError("Only the submitter and curators may change who sees this submission.", status=403)
    if submission.source != Submission.Source.UPLOAD:
        raise SubmissionError("Results reported in a paper are always public.", status=400, field="visibility")
    if visibility not in Submission.Visibility.values:
        raise SubmissionError(f"Unknown visibility '{visibility}': one of {', '.join(Submission.Visibility.values)}.",
                              field="visibility")
    if submission.visibility == Submission.Visibility.WITHDRAWN and visibility != submission.visibility and not curator:
        raise SubmissionError("A withdrawn submission stays withdrawn; upload the file again to enter it anew.",
                              status=403, field="visibility")
    before = submission.visibility
    if before == visibility:
        return False
    phase_private_check(split=submission.split, visibility=visibility)
    with transaction.atomic():
        submission.visibility = visibility
        submission.save(update_fields=["visibility"])
        _audit(subject=ChangeRecord.Subject.SUBMISSION, object_id=submission.pk, user=user,
               changes={"visibility": [before, visibility]})
    board_cache_invalidate(split_id=submission.split_id)
    return True


def upload_request_check(*, user: AbstractBaseUser | None, content_length: str | None) -> None:
    """Refuse an upload request before its body is read: anonymous, or declaring more than the file limit
    (plus room for the form's other fields)."""
    submitter_check(user)
    try:
        declared = int(content_length or "")
    except ValueError:
        return
    limit = settings.SUBMISSION_MAX_BYTES
    if declared > limit + 1024 * 1024:
        raise SubmissionError(f"The upload is larger than the limit of {limit} bytes.", status=413, field="file")


def _sha256(uploaded_file: UploadedFile) -> str:
    digest = hashlib.sha256()
    for chunk in uploaded_file.chunks():
        digest.update(chunk)
    uploaded_file.seek(0)
    return digest.hexdigest()


def _file_store(submission: Submission, uploaded_file: UploadedFile) -> str | None:
    """Store the upload under its sha256 (`scoring.models.submission_file_path`), or point to the stored copy of
    the same content when there is one (an identical file is stored once). Returns the name this call wrote, to
    remove if the transaction fails; None when it reused a stored file."""
    field = Submission.file.field
    name = field.generate_filename(submission, uploaded_file.name)
    if field.storage.exists(name):
        submission.file.name = name
        return None
    submission.file.save(uploaded_file.name, uploaded_file, save=False)
    return submission.file.name


def submission_create(
    *,
    user: AbstractBaseUser,
    split: Split,
    model_entry: ModelEntry,
    uploaded_file: UploadedFile,
    options: dict[str, Any] | None = None,
    note: str = "",
    run_set: str = "",
    visibility: str = Submission.Visibility.PUBLIC,
    source: str = Submission.Source.UPLOAD,
) -> Submission:
    """Store the file and the submission in one transaction; scoring is enqueued once it commits. A new (unsaved)
    model entry is saved with it and its creation recorded in the change audit. `run_set`: a label marking repeated
    runs of one model variant on this split (the board averages them). A private one is scored the same and shown
    to its submitter only."""
    if visibility not in (Submission.Visibility.PUBLIC, Submission.Visibility.PRIVATE):
        raise SubmissionError("An upload is public or private.", field="visibility")
    submission_check(user=user, split=split, uploaded_file=uploaded_file, visibility=visibility)
    submission_file_check(split=split, uploaded_file=uploaded_file, options=options or {}, model=model_entry.name)
    sha = _sha256(uploaded_file)
    stored_name = None
    try:
        with transaction.atomic():
            # First the quota's row lock: parallel uploads of one user to one split are counted and stored in turn.
            submission_quota_claim(user=user, split=split)
            created = None
            if model_entry.pk is None:
                new_entry = model_entry
                model_entry = model_entry_save(user=user, entry=model_entry)
                # A parallel upload may have made the same variant first: then this one made nothing.
                created = model_entry if model_entry is new_entry else None
            submission = Submission(
                model_entry=model_entry,
                split=split,
                submitter=user,
                original_filename=uploaded_file.name[:255],
                size_bytes=uploaded_file.size,
                sha256=sha,
                options=options or {},
                note=note,
                run_set=" ".join(run_set.split())[:60],
                visibility=visibility,
                source=source,
            )
            stored_name = _file_store(submission, uploaded_file)
            submission.save()
            if created is not None:
                _audit_entry_created(user=user, entry=created, submission=submission)
            transaction.on_commit(lambda: submission_enqueue(submission_id=submission.pk))
    except Exception:
        # The file this call wrote goes with the refused upload, unless a committed submission of the same content
        # (stored under the same name) came to point to it meanwhile.
        if stored_name and not Submission.objects.filter(file=stored_name).exists():
            Submission.file.field.storage.delete(stored_name)
        raise
    return submission


# The demo's phases (`demo_phases_ensure`): open since this date, with no close date, so that the demo stays usable.
DEMO_PHASES_OPEN = datetime(2026, 1, 1, tzinfo=dt_timezone.utc)
DEMO_TEST_QUOTA = {"daily_quota": 5, "total_quota": 20}


def demo_phases_ensure(*, benchmark: Benchmark, dev: Split, test: Split) -> tuple[Phase, Phase]:
    """A benchmark's two demo phases, as a challenge has them (idempotent): "Development" on the demo split with
    public ground truth (no quota), and "Test" on a split with hidden ground truth (5 uploads a day and 20 in all
    per user, results at once), which also holds the paper's `test` split the migration put in a phase of that
    slug."""
    phases = []
    for slug, name, order, split, fields, description in (
        ("dev", "Development", 1, dev, {"daily_quota": None, "total_quota": None},
         "Public ground truth: check your pipeline here, as often as you like."),
        ("test", "Test", 2, test, DEMO_TEST_QUOTA,
         "Hidden ground truth: the ranking that counts, within a quota per user."),
    ):
        phase, _ = Phase.objects.update_or_create(
            benchmark=benchmark, slug=slug,
            defaults={"name": name, "order": order, "opens_at": DEMO_PHASES_OPEN, "closes_at": None,
                      "results_at_close": False, "private_allowed": True, "description": description, **fields})
        Split.objects.filter(pk=split.pk).update(phase=phase)
        split.phase = phase
        phases.append(phase)
    return phases[0], phases[1]


def demo_submission_ensure(
    *,
    split: Split,
    owner_username: str,
    slug: str,
    name: str,
    description: str,
    content: Callable[[], str],
    options: dict[str, Any] | None = None,
) -> tuple[Submission, str]:
    """A demo baseline's submission on a split, created once (idempotent) and scored at once by the same pipeline.

    `content` builds the prediction file only when the submission does not exist yet (or failed before)."""
    owner, _ = get_user_model().objects.get_or_create(username=owner_username, defaults={"is_active": False})
    entry, _ = ModelEntry.objects.get_or_create(
        slug=slug, defaults={"name": name, "kind": ModelEntry.Kind.BASELINE, "description": description}
    )
    submission = Submission.objects.filter(model_entry=entry, split=split).order_by("-created_at").first()
    if submission is None or submission.status == Submission.Status.FAILED:
        submission = submission_create(
            user=owner, split=split, model_entry=entry, options=options or {}, note="demo baseline",
            uploaded_file=SimpleUploadedFile(f"{slug}.jsonl", content().encode("utf-8"), "application/jsonl"),
        )
    outcome = submission_score(submission_id=submission.pk, worker="make_demo")
    submission.refresh_from_db()
    return submission, outcome
