"""The checks an upload meets before anything of it is stored, and the free format pre-check that stores nothing.

`scoring.services.submission_create` calls `submission_check` (signed in, a split with samples whose phase is open
and allows the visibility asked for (scoring.phases), within the phase's quotas (scoring.quota), a file of an allowed
size) and `submission_file_check` (the plugin's sniff, then the same pre-check
as the free check page: the one check of an upload's content, for the web form, the API and the command-line client)
first, then stores; `submission_precheck` validates a file's format for anyone, without scoring or storing it and
without using quota.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile

from scoring.benchmarks import UnknownBenchmark, plugin_for, plugins
from scoring.core.bounded import document_error
from scoring.core.contract import FileProblem, PrecheckReport, ScorerInput, SubmissionRejected
from scoring.core.intake import head_fits, head_objects, with_misnamed_fields
from scoring.core.jsonl import json_lines, text_lines
from scoring.core.plugin import SNIFF_BYTES, BenchmarkPlugin
from scoring.errors import FileRefused, SubmissionError
from scoring.models import Split, Submission
from scoring.phases import phase_private_check, phase_upload_check
from scoring.quota import submission_quota_check
from scoring.selectors import split_samples


def submitter_check(user: AbstractBaseUser | None) -> None:
    """Refuse an anonymous submitter (401): uploads and upload requests are signed in."""
    if user is None or not user.is_authenticated:
        raise SubmissionError("Sign in to submit (use an API token for scripts).", status=401)


def split_has_samples_check(*, split: Split) -> None:
    """Refuse an upload to a split that holds no samples yet: nothing in it could be scored."""
    if not split.samples.exists():
        raise SubmissionError(
            f"Split {split.name} of {split.benchmark.name} holds no samples yet, so nothing sent to it could be "
            "scored; its samples are imported by the site's curators. Choose another split (its format page lists "
            "them). Nothing was stored and no quota was used.", status=409, field="split")


def submission_check(*, user: AbstractBaseUser | None, split: Split | None, uploaded_file: UploadedFile | None,
                     visibility: str = Submission.Visibility.PUBLIC) -> None:
    """Refuse an upload that must not be stored: anonymous, to a split with no samples or outside its phase's dates,
    private where the phase allows public ones only, over quota, missing, empty or too large."""
    submitter_check(user)
    if split is not None:
        split_has_samples_check(split=split)
        phase_upload_check(split=split)
        phase_private_check(split=split, visibility=visibility)
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


def _generic_problems(path: Path, name: str, *, samples: int) -> SubmissionRejected:
    """The checks every file gets when its benchmark has no pre-check of its own: it is UTF-8 text read with the
    readers' shared decoding (scoring.core.jsonl), no longer than the split's line bound, and a .jsonl / .json
    file's lines or document are JSON. Every problem is counted (the rejection keeps the first ones)."""
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix == "json":
        error = document_error(path.read_bytes())
        return SubmissionRejected("", [FileProblem(error)] if error else [])
    problems: list[FileProblem] = []
    try:
        with path.open("rb") as handle:
            lines = json_lines(handle, samples=samples) if suffix in ("jsonl", "ndjson") else text_lines(
                handle, samples=samples)
            problems += (FileProblem(line.error, line=line.number) for line in lines if line.error)
    except SubmissionRejected as exc:
        problems += exc.problems
    return SubmissionRejected("", problems)


@dataclass(frozen=True)
class PrecheckResult:
    problems: list[FileProblem]
    checked_by: str  # "scorer" when the benchmark's scorer has a pre-check, else "generic"
    report: PrecheckReport = PrecheckReport()  # what the scorer's pre-check found beyond the problems

    @property
    def ok(self) -> bool:
        return not self.problems


def _file_precheck(*, split: Split, path: Path, name: str, options: Mapping[str, Any] | None,
                   model: str) -> tuple[SubmissionRejected, PrecheckReport, str]:
    """The file at `path` read and matched to the split as its scorer would (the plugin's pre-check), or the generic
    check: every problem (in a rejection, which counts them all), the pre-check's report and who checked."""
    try:
        precheck = plugin_for(split.benchmark.scorer).precheck_function()
    except UnknownBenchmark:
        precheck = None
    if precheck is None:
        return _generic_problems(path, name, samples=split.samples.count()), PrecheckReport(), "generic"
    samples = split_samples(split=split, labels_only=True)
    try:
        found = precheck(ScorerInput(file_path=path, samples=samples, options=dict(options or {}), model=model))
    except SubmissionRejected as exc:  # the file cannot be read far enough to be matched
        rejection = exc if exc.problems else SubmissionRejected(exc.message, [FileProblem(exc.message)])
        return rejection, PrecheckReport(samples=len(samples)), "scorer"
    report = found if isinstance(found, PrecheckReport) else PrecheckReport(problems=tuple(found))
    return SubmissionRejected("", report.problems), report, "scorer"


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
    with _temporary_copy(uploaded_file) as path:
        rejection, report, checked_by = _file_precheck(split=split, path=path, name=uploaded_file.name,
                                                       options=options, model=model)
    left_out = rejection.left_out_problem()
    return PrecheckResult(rejection.problems + ([left_out] if left_out else []), checked_by, report)


@contextmanager
def _temporary_copy(uploaded_file: UploadedFile) -> Iterator[Path]:
    """The upload in a temporary file, removed on leaving."""
    with tempfile.NamedTemporaryFile(suffix="-" + Path(uploaded_file.name).name[-80:]) as tmp:
        for chunk in uploaded_file.chunks():
            tmp.write(chunk)
        tmp.flush()
        uploaded_file.seek(0)
        yield Path(tmp.name)


# -- the intake: one check of an upload's file, whichever way it came (web form, API, command-line client) ---------

NOTHING_STORED = "Nothing was stored and no quota was used."


def _head(uploaded_file: UploadedFile) -> tuple[bytes, bool]:
    uploaded_file.seek(0)
    head = uploaded_file.read(SNIFF_BYTES)
    uploaded_file.seek(0)
    return head, len(head) >= uploaded_file.size


def _sniffed(*, plugin: BenchmarkPlugin | None, head: bytes, complete: bool, options: dict[str, Any]) -> str | None:
    sniff = plugin.sniff_function() if plugin is not None else None
    if sniff is None:
        return None
    try:
        return sniff(head, options, complete=complete)
    except SubmissionRejected as exc:  # the options themselves are wrong
        raise SubmissionError(exc.message, field="options") from None


def format_look_alikes(*, head: bytes, complete: bool, plugin: BenchmarkPlugin | None) -> list[BenchmarkPlugin]:
    """The other registered benchmarks whose predictions file this start of a file looks like: every JSON object line
    holds one of their `FormatGuide.line_signatures`, and none holds one of the split's own benchmark's. Asked of
    every plugin alike (none is named here)."""
    objects = head_objects(head, complete=complete)
    if plugin is not None and head_fits(objects, plugin.format.line_signatures):
        return []
    return [other for other in plugins() if other is not plugin and head_fits(objects, other.format.line_signatures)]


def _object_lines(path: Path, *, samples: int) -> Iterator[tuple[int, Mapping[str, Any]]]:
    try:
        with path.open("rb") as handle:
            for line in json_lines(handle, samples=samples):
                if isinstance(line.value, dict):
                    yield line.number, line.value
    except SubmissionRejected:
        return


def _with_misnamed_fields(rejection: SubmissionRejected, *, path: Path, known: Sequence[str],
                          samples: int) -> SubmissionRejected:
    """The rejection with each line's problems replaced by its misnamed fields, where a line has one."""
    if not known or not rejection.problems:
        return rejection
    problems = with_misnamed_fields(rejection.problems, _object_lines(path, samples=samples), known)
    if problems == rejection.problems:
        return rejection
    unkept = rejection.problem_count - len(rejection.problems)
    return SubmissionRejected(rejection.message, problems, total=len(problems) + unkept)


def submission_file_check(*, split: Split, uploaded_file: UploadedFile, options: dict[str, Any],
                          model: str = "") -> None:
    """Refuse, before it is stored, a file the scorer would refuse: the one check of an upload's content, which
    `scoring.services.submission_create` runs for the web form, the API and the command-line client alike. First
    the benchmark plugin's `sniff` (a file plainly in a format the options do not read), then the pre-check the
    free check page runs (the file read and matched to the split as the scorer reads it); a file over
    PRECHECK_MAX_BYTES gets the sniff only, and the scorer says the rest.

    Refused as `FileRefused`: a sentence saying why (naming the other benchmark whose predictions file it looks
    like, where one does: `format_look_alikes`), and the problems grouped by kind with their counts (a field
    misnamed on a line is said in place of that line's other problems: "did you mean `images`?")."""
    try:
        plugin: BenchmarkPlugin | None = plugin_for(split.benchmark.scorer)
    except UnknownBenchmark:
        plugin = None
    head, complete = _head(uploaded_file)
    sniffed = _sniffed(plugin=plugin, head=head, complete=complete, options=options)
    if sniffed:  # one problem, which the sentence says: no list below it
        rejection = SubmissionRejected(sniffed, total=1)
    elif uploaded_file.size > settings.PRECHECK_MAX_BYTES:
        return
    else:
        with _temporary_copy(uploaded_file) as path:
            rejection, _, _ = _file_precheck(split=split, path=path, name=uploaded_file.name, options=options,
                                             model=model)
            if not rejection.problem_count:
                return
            rejection = _with_misnamed_fields(rejection, path=path, known=plugin.format.line_keys if plugin else (),
                                              samples=split.samples.count())
    raise FileRefused(_refusal_sentence(split=split, plugin=plugin, rejection=rejection, sniffed=sniffed,
                                        look_alikes=format_look_alikes(head=head, complete=complete, plugin=plugin)),
                      groups=[] if sniffed else rejection.groups(), total=rejection.problem_count)


def _refusal_sentence(*, split: Split, plugin: BenchmarkPlugin | None, rejection: SubmissionRejected,
                      sniffed: str | None, look_alikes: Sequence[BenchmarkPlugin]) -> str:
    own = plugin.title if plugin is not None else split.benchmark.name
    if look_alikes:
        titles = " or ".join(other.title for other in look_alikes)
        return (f"This looks like {_a(titles)} predictions file, and this split is {own}'s ({split.name}): upload "
                f"it to {_a(titles)} split, or send {_a(own)} predictions file here (its format page shows one). "
                f"{NOTHING_STORED}")
    if sniffed:
        return f"{sniffed} {NOTHING_STORED}"
    count = rejection.problem_count
    return (f"The file cannot be scored on {own} ({split.name}): {count:,} problem{'s' if count != 1 else ''}, "
            f"below. {NOTHING_STORED}")



def _a(title: str) -> str:
    return f"{'an' if title[:1].upper() in 'AEIOU' else 'a'} {title}"
