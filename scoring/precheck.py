"""The checks an upload meets before anything of it is stored, and the free format pre-check that stores nothing.

`scoring.services.submission_create` calls `submission_check` (signed in, within the split's daily quota
(scoring.quota), a file of an allowed size) and `submission_format_check` (the plugin's sniff) first, then stores;
`submission_precheck` validates a file's format for anyone, without scoring or storing it and without using quota.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile

from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.bounded import document_error
from scoring.core.contract import FileProblem, PrecheckReport, ScorerInput, SubmissionRejected
from scoring.core.jsonl import json_lines, text_lines
from scoring.core.plugin import SNIFF_BYTES
from scoring.errors import SubmissionError
from scoring.models import Split
from scoring.quota import submission_quota_check
from scoring.selectors import split_samples


def submitter_check(user: AbstractBaseUser | None) -> None:
    """Refuse an anonymous submitter (401): uploads and upload requests are signed in."""
    if user is None or not user.is_authenticated:
        raise SubmissionError("Sign in to submit (use an API token for scripts).", status=401)


def submission_check(*, user: AbstractBaseUser | None, split: Split | None, uploaded_file: UploadedFile | None) -> None:
    """Refuse an upload that must not be stored: anonymous, over quota, missing, empty or too large."""
    submitter_check(user)
    if split is not None:
        submission_quota_check(user=user, split=split)
    limit = settings.SUBMISSION_MAX_BYTES
    if uploaded_file is None:
        raise SubmissionError("No file was uploaded (form field 'file').", field="file")
    if uploaded_file.size == 0:
        raise SubmissionError(f"The file '{uploaded_file.name}' is empty.", field="file")
    if uploaded_file.size > limit:
        raise SubmissionError(
            f"The file '{uploaded_file.name}' is {uploaded_file.size} bytes, over the limit of {limit} bytes.",
            status=413,
            field="file",
        )


def submission_format_check(*, split: Split, uploaded_file: UploadedFile, options: dict[str, Any]) -> None:
    """Refuse, before it is stored (no quota used), an upload whose start shows it is in a format its options do not
    read: the benchmark plugin's `sniff` (EPIC: raw responses without the raw option). The scorer says the same of
    a file it is given anyway, for every line."""
    try:
        sniff = plugin_for(split.benchmark.scorer).sniff_function()
    except UnknownBenchmark:
        return
    if sniff is None:
        return
    uploaded_file.seek(0)
    head = uploaded_file.read(SNIFF_BYTES)
    uploaded_file.seek(0)
    try:
        message = sniff(head, options, complete=len(head) >= uploaded_file.size)
    except SubmissionRejected as exc:  # the options themselves are wrong
        raise SubmissionError(exc.message, field="options") from None
    if message:
        raise SubmissionError(f"{message} Nothing was stored and no quota was used.", field="file")


def _generic_problems(path: Path, name: str, *, samples: int) -> list[FileProblem]:
    """The checks every file gets when its benchmark has no pre-check of its own: it is UTF-8 text read with the
    readers' shared decoding (scoring.core.jsonl), no longer than the split's line bound, and a .jsonl / .json
    file's lines or document are JSON. Stops at the 20th problem."""
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix == "json":
        error = document_error(path.read_bytes())
        return [FileProblem(error)] if error else []
    problems: list[FileProblem] = []
    try:
        with path.open("rb") as handle:
            lines = json_lines(handle, samples=samples) if suffix in ("jsonl", "ndjson") else text_lines(
                handle, samples=samples)
            for line in lines:
                if line.error:
                    problems.append(FileProblem(line.error, line=line.number))
                    if len(problems) >= 20:
                        break
    except SubmissionRejected as exc:
        problems += exc.problems
    return problems


@dataclass(frozen=True)
class PrecheckResult:
    problems: list[FileProblem]
    checked_by: str  # "scorer" when the benchmark's scorer has a pre-check, else "generic"
    report: PrecheckReport = PrecheckReport()  # what the scorer's pre-check found beyond the problems

    @property
    def ok(self) -> bool:
        return not self.problems


def submission_precheck(*, split: Split, uploaded_file: UploadedFile, options: Mapping[str, Any] | None = None,
                        model: str = "") -> PrecheckResult:
    """Validate a file's format without scoring it and without using quota.

    The benchmark's plugin may declare a `precheck(ScorerInput) -> PrecheckReport` (the built-in ones read the file
    with the upload's `options`, e.g. EPIC's raw flag, and match it to the split as their scorer does, saying which
    samples no line answers; `model`, the model's name where known, as the scorer would be given it); else the generic check reads every line. The work is bounded, for this runs on the
    request of anyone: files over PRECHECK_MAX_BYTES are not read, reading stops at the split's line bound, and the
    samples are given as keys and labels only (matching lines to samples needs no inputs and no ground truth, and
    the pre-check must not load hidden ground truth either). Nothing is stored: the file goes to a temporary file
    that is removed at once.
    """
    limit = settings.PRECHECK_MAX_BYTES
    if uploaded_file.size > limit:
        return PrecheckResult([FileProblem(
            f"the pre-check reads files of up to {limit:,} bytes and this one has {uploaded_file.size:,}: upload it "
            "to have it checked and scored, or check a part of it here")], "generic")
    try:
        precheck = plugin_for(split.benchmark.scorer).precheck_function()
    except UnknownBenchmark:
        precheck = None
    with tempfile.NamedTemporaryFile(suffix="-" + Path(uploaded_file.name).name[-80:]) as tmp:
        for chunk in uploaded_file.chunks():
            tmp.write(chunk)
        tmp.flush()
        path = Path(tmp.name)
        if precheck is None:
            return PrecheckResult(_generic_problems(path, uploaded_file.name, samples=split.samples.count()), "generic")
        samples = split_samples(split=split, labels_only=True)
        try:
            found = precheck(ScorerInput(file_path=path, samples=samples, options=dict(options or {}), model=model))
        except SubmissionRejected as exc:
            found = exc if exc.problems else SubmissionRejected(exc.message, [FileProblem(exc.message)])
    if isinstance(found, SubmissionRejected):  # the file cannot be read far enough to be matched
        report = PrecheckReport(samples=len(samples))
        rejection = found
    else:
        report = found if isinstance(found, PrecheckReport) else PrecheckReport(problems=tuple(found))
        rejection = SubmissionRejected("", report.problems)
    left_out = rejection.left_out_problem()
    return PrecheckResult(rejection.problems + ([left_out] if left_out else []), "scorer", report)
