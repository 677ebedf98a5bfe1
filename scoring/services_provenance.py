"""Writes about a score's provenance: marking an upload "reproduced" once the hub has made its number again from
the artefacts it holds (docs/provenance.md, "Row types"). Check, then do: a curator asks; the stored file is scored
again now by the benchmark's own scorer (VGE: its action logs replayed through the hub's engine; EPIC and PLAN: the
predictions read and judged again) and must give the same provenance keys and figures, key for key."""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from accounts.roles import is_curator
from scoring.core.provenance import Difference
from scoring.errors import ServiceRefusal
from scoring.models import ChangeRecord, Submission
from scoring.provenance import submission_rescore_differences
from scoring.selectors import board_cache_invalidate


def submission_reproduce_check(*, user: AbstractBaseUser, submission: Submission) -> None:
    """Refuse what cannot be reproduced: not a curator, not a scored upload, a score still awaiting judgement, a
    score without provenance (made before the hub kept it: score it again first)."""
    if not is_curator(user):
        raise ServiceRefusal("Only curators mark a row reproduced.", status=403)
    if submission.source not in (Submission.Source.UPLOAD, Submission.Source.REPRODUCED):
        raise ServiceRefusal(f"Submission #{submission.pk} is {submission.get_source_display().lower()}: only an "
                             "upload the hub holds the file of can be reproduced.", field="source")
    if submission.status != Submission.Status.SCORED or not submission.file:
        raise ServiceRefusal(f"Submission #{submission.pk} is not scored.", field="status")
    if submission.provisional is not None:
        raise ServiceRefusal(f"Submission #{submission.pk} still awaits judgement: its number is not final.",
                             field="status")
    if not (getattr(submission, "score", None) and submission.score.provenance):
        raise ServiceRefusal(f"Submission #{submission.pk} has no provenance (scored before the hub kept it).",
                             field="provenance")


def submission_reproduce(*, user: AbstractBaseUser, submission: Submission) -> list[Difference]:
    """Score the stored file again; when every key and figure is the same, mark the submission reproduced (recorded
    in its change audit; the board refreshes) and return []. Otherwise change nothing and refuse (409) naming every
    key that differs."""
    submission_reproduce_check(user=user, submission=submission)
    differences = submission_rescore_differences(submission=submission)
    if differences:
        listed = "; ".join(str(d) for d in differences[:10])
        raise ServiceRefusal(f"Not reproduced: scoring the file again differs in {len(differences)} key(s): {listed}",
                             status=409, field=differences[0].key)
    if submission.source == Submission.Source.REPRODUCED:
        return []
    with transaction.atomic():
        before = submission.source
        Submission.objects.filter(pk=submission.pk).update(source=Submission.Source.REPRODUCED)
        submission.source = Submission.Source.REPRODUCED
        ChangeRecord.objects.create(subject=ChangeRecord.Subject.SUBMISSION, object_id=submission.pk,
                                    user=user if user.pk else None,
                                    changes={"source": [before, Submission.Source.REPRODUCED]})
    board_cache_invalidate(split_id=submission.split_id)
    return []
