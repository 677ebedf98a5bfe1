"""EPIC-Bench on the site: the split's samples and an uploaded file in, a ScoringResult out, through the core.

The upload is the toolkit's std_format, or raw responses with `options={"raw": true}`; `{"coord_mode": ...}`
overrides coordinate systems. Every upload is scored under both readings in one pass: the toolkit's (the headline,
as every reported row was scored) and the strict one of deviations B1 and B5 (`STRICT`, stored beside it); the
retired `compat` option changes nothing and is noted. Each
prediction is matched to a sample by key: the GT JSON path from the `EPIC_Bench/` folder on
("EPIC_Bench/Navigation/.../x_mask_rle.json"), taken from `key`/`id`, `ground_truth.gt_json_path` or the
images. The sample's own task and GT are used; a sample without a prediction scores 0 as an invalid response.
Unmatched, duplicate or unreadable lines fail the whole file, so nothing half-scored is published.
"""
from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath
from typing import Any, Mapping, Sequence

from scoring.benchmarks.epic.core.fields import (
    ABSOLUTE,
    AUTO,
    COORDINATE_SYSTEMS,
    FAMILY_COORDINATES,
    NO_VALID_RESPONSE,
    NORM_1,
    NORM_1000,
    coordinate_mode,
    family_coordinates,
    model_family,
)
from scoring.benchmarks.epic.core.pipeline import (
    Line,
    ParsedFile,
    format_problem,
    head_in_other_format,
    read_file,
    score_readings_with_gt,
)
from scoring.benchmarks.epic.core.raw import gt_path_from_images, image_paths
from scoring.benchmarks.epic.core.scorer import SCORER_VERSION, Options, SampleScore, strict_tells_more, summarize
from scoring.benchmarks.epic.core.taxonomy import CATEGORY_CODES, GROUP_CODE_BY_KEY, LEAVES
from scoring.core.contract import (
    AppliedSetting,
    FileProblem,
    PrecheckReport,
    ReadingFigures,
    SampleReading,
    SampleRecord,
    SampleResult,
    ScorerInput,
    ScoringResult,
    SubmissionRejected,
)
from scoring.core.numbers import finite
from scoring.core.stats import bootstrap_mean_intervals

ROOT_FOLDER = "EPIC_Bench"
PROGRESS_EVERY = 250


def key_from_path(path: Any) -> str | None:
    """The sample key of a GT path: from the last `EPIC_Bench` component on, '/'-separated."""
    if not isinstance(path, str) or not path:
        return None
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if ROOT_FOLDER not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index(ROOT_FOLDER)
    return "/".join(parts[at:])


def prediction_key(record: Mapping[str, Any]) -> str | None:
    for name in ("key", "id", "sample_id"):
        value = record.get(name)
        if isinstance(value, str) and value:
            return key_from_path(value) or value
    inline = record.get("ground_truth")
    if isinstance(inline, dict):
        value = inline.get("gt_json_path")
        value = value[0] if isinstance(value, list) and value else value
        key = key_from_path(value)
        if key:
            return key
    task = record.get("task_type")
    task = task[0] if isinstance(task, list) and task else task
    return key_from_path(gt_path_from_images(image_paths(record.get("images")), task if isinstance(task, str) else None))


def match(lines: Sequence[Line], samples: Sequence[SampleRecord]) -> tuple[dict[str, Line], list[FileProblem]]:
    """Prediction lines by sample key; problems for lines that match no sample, or the same one twice."""
    keys = {s.key for s in samples}
    matched: dict[str, Line] = {}
    problems: list[FileProblem] = []
    for line in lines:
        key = prediction_key(line.record)
        if key is None:
            problems.append(FileProblem("cannot tell which sample this is: no key/id, no gt_json_path under "
                                        f"{ROOT_FOLDER}/ and no *_image path", line=line.number, field="ground_truth.gt_json_path"))
        elif key not in keys:
            problems.append(FileProblem(f"'{key}' is not a sample of this split", line=line.number,
                                        field="ground_truth.gt_json_path"))
        elif key in matched:
            problems.append(FileProblem(f"second prediction for '{key}' (first on line {matched[key].number})",
                                        line=line.number, field="ground_truth.gt_json_path"))
        else:
            matched[key] = line
    return matched, problems


def _missing_record() -> dict[str, Any]:
    """A sample the file has no line for: No Valid Response, bare, in every field, which both readings score 0 as an
    invalid response (the toolkit reads a list holding it as an empty answer: 1.0 against an empty GT)."""
    nvr = NO_VALID_RESPONSE
    return {"formatted_response_localization": nvr, "formatted_response_count": nvr,
            "formatted_response_path": nvr, "formatted_response_binary": nvr}


def _record_for(sample: SampleRecord, line: Line | None) -> dict[str, Any]:
    """The prediction with the split's own task and GT path (the file's task fields are not trusted)."""
    record = dict(line.record) if line else _missing_record()
    record["task_category"] = [sample.category]
    record["task_type"] = [sample.task]
    record["ground_truth"] = {"gt_json_path": [sample.key]}
    return record


TOOLKIT, STRICT = "toolkit", "strict"  # the plugin's reading keys
COMPAT_RETIRED = ("The compat option is retired and changes nothing: every upload is scored by the toolkit's reading "
                  "(the board's headline) and by the strict reading of deviations B1 and B5 (the board's "
                  "?reading=strict).")


def options_from(raw_options: Mapping[str, Any], model: str = "") -> tuple[Options, bool]:
    """The scorer's options and the raw flag from the upload's options; `model` (the model entry's name) gives the
    toolkit family whose coordinate system replaces auto when coord_mode is left at auto."""
    coord = raw_options.get("coord_mode") or None
    if coord is not None and coord not in COORDINATE_SYSTEMS:
        raise SubmissionRejected(f"Unknown coord_mode '{coord}'.", [FileProblem(
            f"coord_mode must be one of {', '.join(COORDINATE_SYSTEMS)}", field="options.coord_mode")])
    coord = None if coord == "auto" else coord
    return Options(compat=True, coord_mode=coord, family=None if coord else model_family(model)), \
        _flag(raw_options.get("raw"))


def provenance_options(raw_options: Mapping[str, Any], model: str = "") -> dict[str, Any]:
    """The protocol options an EPIC score states in its provenance: the coordinate system boxes and points are read
    in and what decided it, the file's reading (raw responses through the reference parser, or std_format) and the
    readings every upload is scored under (the headline's first). Pure."""
    options, raw = options_from(raw_options, model)
    decided_by = "upload" if options.coord_mode else "family" if options.family else "lines, else auto"
    found: dict[str, Any] = {
        "coordinate_system": options.coord_mode or family_coordinates(options.family) or AUTO,
        "coordinates_decided_by": decided_by,
        "file_reading": "raw responses (reference parser)" if raw else "std_format",
        "readings": [TOOLKIT, STRICT],
    }
    if options.family and not options.coord_mode:
        found["family"] = options.family
    return found


def _flag(value: Any) -> bool:
    """Form fields arrive as strings: "false" must not read as true."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def breakdown_of(summary: Mapping[str, Any]) -> dict[str, float | None]:
    """Board columns in percent: overall, TL/Nav/Manip, the nine group codes, the 23 leaves by their by_type key."""
    out: dict[str, float | None] = {"overall": 100.0 * summary["overall"]["average_score"]}
    for category, bucket in summary["by_category"].items():
        out[CATEGORY_CODES[category]] = 100.0 * bucket["mean_score"]
    for key, bucket in summary["by_group"].items():
        out[GROUP_CODE_BY_KEY[key]] = 100.0 * bucket["mean_score"]
    for key, bucket in summary["by_type"].items():
        out[key] = 100.0 * bucket["mean_score"]
    return out


def intervals_of(scores: Sequence[SampleScore]) -> dict[str, tuple[float, float]]:
    """95% bootstrap intervals (fixed seed, stratified by category) of every breakdown column."""
    columns: dict[str, list[bool]] = {"overall": [True] * len(scores)}
    for category, code in CATEGORY_CODES.items():
        columns[code] = [s.category == category for s in scores]
    for leaf in LEAVES:
        columns.setdefault(leaf.group_code, [s.leaf is not None and s.leaf.group_code == leaf.group_code for s in scores])
        columns[leaf.by_type] = [s.leaf is leaf for s in scores]
    columns = {k: v for k, v in columns.items() if any(v)}
    return bootstrap_mean_intervals([s.score for s in scores], columns, strata=[s.category for s in scores], scale=100.0)


def sample_result(sample: SampleRecord, line: Line | None, s: SampleScore, strict: SampleScore | None = None) -> SampleResult:
    """One sample's row: the toolkit's reading, with the strict reading's score where it differs."""
    outcome = "missing" if line is None else s.outcome
    readings = {}
    if strict is not None and strict is not s:
        strict_outcome = "missing" if line is None else strict.outcome
        if (strict.score, strict.invalid, strict_outcome) != (s.score, s.invalid, outcome):
            readings[STRICT] = SampleReading(strict.score, strict.invalid, strict_outcome)
    error = s.error or ""
    if line is None:
        error = "no prediction for this sample"
    details: dict[str, Any] = {"line": line.number if line else None, "gt_error": s.gt_error, **dict(s.details)}
    return SampleResult(index=s.index, key=sample.key, score=s.score, task=sample.task, outcome=outcome,
                        invalid=s.invalid, error=error, components=dict(s.components), details=details,
                        readings=readings)


RAW_CHOICE = ("tick \"The file holds raw model responses\" on the form (API and client: raw=true, or options "
              "{\"raw\": true})")
STD_CHOICE = "leave \"The file holds raw model responses\" unticked (API and client: no raw option)"
def sniff(head: bytes, options: Mapping[str, Any], *, complete: bool) -> str | None:
    """Said before an upload is stored, from the start of the file: it is plainly in the other format than the
    options read (every object line there looks raw while std_format is read, or the other way round)."""
    _, raw = options_from(options)
    lines = head_in_other_format(head, raw=raw, complete=complete)
    if not lines:
        return None
    if raw:
        return (f"This looks like std_format, not raw responses: the first {lines} line(s) have formatted_response_* "
                f"fields and no 'response'. To have it read as std_format, {STD_CHOICE}.")
    return (f"This looks like raw responses: the first {lines} line(s) have a 'response' and no formatted_response_* "
            f"field, and read as std_format they would all score as no valid response. To have them parsed, "
            f"{RAW_CHOICE}.")


def file_problems(parsed: ParsedFile, match_problems: Sequence[FileProblem]) -> list[FileProblem]:
    """Everything that makes the file unusable: the format it seems to be in first (then the matching problems of
    the lines in the other format are left out: they follow from it), lines that cannot be read, lines that match
    no sample or the same one twice."""
    unreadable = [p for p in parsed.problems if "skipped" in p.message]
    problems = [*unreadable, *match_problems]
    wrong_format = format_problem(parsed, how_raw=RAW_CHOICE, how_std=STD_CHOICE)
    if wrong_format is None:
        return problems
    other = set(parsed.other_format)
    return [wrong_format, *(p for p in problems if p.line not in other)]


def read_for_matching(inp: ScorerInput, *, raw: bool,
                      read_answers: bool) -> tuple[ParsedFile, dict[str, Line], list[FileProblem]]:
    """The file read as the scorer reads it (at most the split's line bound), its lines matched to the split's
    samples, and what makes it unusable (`file_problems`)."""
    parsed = read_file(inp.file_path, raw=raw, samples=len(inp.samples), read_answers=read_answers)
    matched, match_problems = match(parsed.lines, inp.samples)
    return parsed, matched, file_problems(parsed, match_problems)


def read_and_match(inp: ScorerInput, *, raw: bool, read_answers: bool = True) -> tuple[ParsedFile, dict[str, Line]]:
    """The file read as the scorer reads it (at most the split's line bound) and its lines matched to the split's
    samples; `SubmissionRejected` when a line cannot be used, the file looks like the other format, or none
    matches."""
    parsed, matched, problems = read_for_matching(inp, raw=raw, read_answers=read_answers)
    if problems:
        first_problem = problems[0]
        if parsed.other_format:
            message = f"{first_problem.message[:1].upper()}{first_problem.message[1:]}. Nothing was scored."
        else:
            message = f"{len(problems)} line(s) of the file cannot be used (first: {first_problem}); nothing was scored."
        raise SubmissionRejected(message, problems)
    if not matched:
        raise SubmissionRejected("No prediction matches a sample of this split.", [FileProblem("no matching line")])
    return parsed, matched


def precheck(inp: ScorerInput) -> PrecheckReport:
    """What the scorer would refuse, without scoring: the file read with the upload's options (raw or std_format)
    and matched to the split as `score` does, with which samples no line answers. Raw answers are left unread
    (which sample a line answers needs its images only; an unreadable answer scores 0, it never rejects a file)."""
    options, raw = options_from(inp.options or {}, inp.model)
    parsed, matched, problems = read_for_matching(inp, raw=raw, read_answers=False)
    if not matched and not problems:
        problems = [FileProblem("no line matches a sample of this split")]
    records = [line.record for line in matched.values()]
    notes = ["The answers in raw responses are parsed when the file is scored: one that cannot be read scores 0 "
             "as no valid response, it does not reject the file."] if raw else [
                 *coordinate_warnings(records, options), *auto_notes(records, options)]
    if "compat" in (inp.options or {}):
        notes = [COMPAT_RETIRED, *notes]
    return PrecheckReport.of(problems, file_format="raw responses" if raw else "std_format",
                             records=len(parsed.lines), matched_keys=matched, samples=inp.samples, notes=notes,
                             applied=[applied_coordinates(records, options, inp.model)])


def _declared(record: Mapping[str, Any]) -> str:
    """The coordinate_system a line declares (auto: none; an unhashable value reads as none, as in the scorer)."""
    try:
        return coordinate_mode(record.get("coordinate_system"))
    except TypeError:
        return AUTO


def applied_coordinates(records: Sequence[Mapping[str, Any]], options: Options, model: str) -> AppliedSetting:
    """Which coordinate system the scorer will read the file's lines in, and why (`Options.mode_for`, said once for
    the file): the upload's coord_mode; else the lines' own coordinate_system where every line declares one; else the
    model family's, from the model's name; else auto detection per sample."""
    setting = "coordinate system"
    if options.coord_mode:
        return AppliedSetting(setting, options.coord_mode, "declared: the upload's coord_mode, for every line")
    declared = [mode for mode in map(_declared, records) if mode != AUTO]
    if records and len(declared) == len(records):
        return AppliedSetting(setting, ", ".join(sorted(set(declared))), "declared: each line's coordinate_system")
    own = (f"; {len(declared)} of {len(records)} lines declare their own coordinate_system and keep it"
           if declared else "")
    if options.family:
        return AppliedSetting(setting, family_coordinates(options.family) or AUTO,
                              f"family {options.family}, from the model name '{model}' (coord_mode left at "
                              f"auto){own}")
    why = (f"the model name '{model}' shows none of the toolkit's families" if model else "no model name given")
    return AppliedSetting(setting, AUTO, f"auto, per sample from its own numbers (coord_mode left at auto; {why})"
                                         f"{own}")


def auto_notes(records: Sequence[Mapping[str, Any]], options: Options) -> list[str]:
    """What auto detection does with the lines it reads, where it may not be what the model meant: numbers within
    0-1000 and above 1 are read as pixels unless one is above the image's larger side (spec 5.1, bug B4)."""
    ranges = []
    for record in records:
        try:
            mode = options.mode_for(record)
        except TypeError:
            mode = options.mode_for({})
        values = _coordinates(record) if mode == AUTO else []
        if values and 1 < max(values) <= 1000 and min(values) >= 0:
            ranges.append(max(values))
    if not ranges:
        return []
    families = ", ".join(family for family, mode in FAMILY_COORDINATES if mode == NORM_1000)
    return [f"Auto detection will read {len(ranges)} line(s) whose coordinates lie within 0-1000 (up to "
            f"{max(ranges):g}): each sample as {NORM_1000} only where a number is above its image's larger side, "
            f"else as {ABSOLUTE} pixels, so 0-1000 answers on images up to 1000 px read as pixels. If the model "
            f"answers in thousandths ({families}), give its name or choose coord_mode {NORM_1000}."]


def _coordinates(record: Mapping[str, Any]) -> list[float]:
    """Every finite number of a std_format record's boxes and path points (non-lists and sentinels: none)."""
    values: list[float] = []
    for name in ("formatted_response_localization", "formatted_response_path"):
        items = record.get(name)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, (list, tuple)):
                values.extend(float(v) for v in item[:4] if isinstance(v, (int, float)) and not isinstance(v, bool)
                              and finite(float(v)) is not None)
    return values


def coordinate_warnings(records: Sequence[Mapping[str, Any]], options: Options) -> list[str]:
    """Pre-check notes where the answers' coordinate ranges contradict the system they will be read in (the
    upload's coord_mode, else a line's own coordinate_system, else the model family's): all numbers within 0-1
    under 0-1000 or pixels (fractions read as the image's top-left corner), numbers above 1 under 0-1, numbers
    above 1000 under 0-1000. Lines read by auto detection are left out: auto follows their numbers. The image
    sizes are the ground truth's, not seen here, so pixels past the image are found only when scoring."""
    by_mode: dict[str, list[float]] = {}
    for record in records:
        try:
            mode = options.mode_for(record)
        except TypeError:  # an unhashable coordinate_system: read as undeclared
            mode = options.mode_for({})
        if mode != AUTO:
            by_mode.setdefault(mode, []).extend(_coordinates(record))
    source = ("the upload's coord_mode" if options.coord_mode else
              f"the model's family ({options.family})" if options.family else "the lines' coordinate_system")
    notes = []
    for mode, values in sorted(by_mode.items()):
        if not values:
            continue
        low, high = min(values), max(values)
        if mode in (NORM_1000, ABSOLUTE) and 0 <= low and high <= 1 and high > 0:
            found = f"every coordinate is within 0-1, which reads as {NORM_1}"
        elif mode == NORM_1 and high > 1:
            found = f"coordinates go up to {high:g}, above the 1 of {NORM_1}"
        elif mode == NORM_1000 and high > 1000:
            found = f"coordinates go up to {high:g}, above the 1000 of {NORM_1000}"
        else:
            continue
        notes.append(f"The coordinates will be read as {mode} (from {source}), but {found}: check the coordinate "
                     "system (coord_mode on upload) before uploading.")
    return notes


def coordinates_of(records: Sequence[Mapping[str, Any]], lines: Sequence[Line | None], scores: Sequence[SampleScore],
                   options: Options) -> dict[str, Any]:
    """How the coordinates were read: the mode chosen on upload (None: auto), what decided it ("upload": the option;
    "family": the model's toolkit family, for the lines that declare no coordinate_system; "file": some lines
    declare a coordinate_system and the rest were detected; "auto": detected per sample), and how many samples were
    read in each mode (the mode a sample's boxes or path were measured in)."""
    resolved: Counter[str] = Counter()
    declared = 0
    for record, line, sample in zip(records, lines, scores):
        for metric in ("localization", "path"):
            found = sample.details.get(metric)
            if isinstance(found, Mapping) and found.get("coordinate_system"):
                resolved[str(found["coordinate_system"])] += 1
                break
        try:
            declares = line is not None and coordinate_mode(record.get("coordinate_system")) != AUTO
        except TypeError:  # an unhashable value: read as auto, as the scorer does not declare it either
            declares = False
        declared += declares
    decided_by = "upload" if options.coord_mode else "family" if options.family else "file" if declared else "auto"
    found: dict[str, Any] = {
        "mode": options.coord_mode or family_coordinates(options.family) or AUTO, "decided_by": decided_by,
        "declared_by_lines": 0 if options.coord_mode else declared, "resolved": dict(sorted(resolved.items()))}
    if decided_by == "family":
        found["family"] = options.family
    return found


def score(inp: ScorerInput) -> ScoringResult:
    options, raw = options_from(inp.options or {}, inp.model)
    parsed, matched = read_and_match(inp, raw=raw)
    samples = list(inp.samples)
    lines = [matched.get(s.key) for s in samples]
    records = [_record_for(s, line) for s, line in zip(samples, lines)]
    triples = ((record, s.ground_truth, None if s.ground_truth else "the sample has no ground truth")
               for s, record in zip(samples, records))
    pairs = score_readings_with_gt(triples, options=options, progress=inp.progress, total=len(samples),
                                   every=PROGRESS_EVERY)
    scores = [toolkit for toolkit, _ in pairs]
    strict_scores = [strict for _, strict in pairs]
    summary = summarize(scores)
    breakdown = breakdown_of(summary)
    notes = [p.as_dict() for p in parsed.problems][:200]
    if "compat" in (inp.options or {}):
        notes.insert(0, {"line": None, "field": "options.compat", "message": COMPAT_RETIRED})
    details = {
        "mode": TOOLKIT,
        "parser": "reference" if raw else "std_format",
        "coord_override": options.coord_mode,
        "coordinates": coordinates_of(records, lines, scores, options),
        "samples": len(samples),
        "predictions": len(matched),
        "missing": len(samples) - len(matched),
        "num_invalid_response": summary["overall"]["num_invalid_response"],
        "gt_errors": sum(1 for s in scores if s.gt_error),
        "counts": {k: {"n": b["total_processed"], "invalid": b["num_invalid_response"]}
                   for part in ("by_category", "by_group", "by_type") for k, b in summary[part].items()},
        "notes": notes,
    }
    intervals = intervals_of(scores)
    return ScoringResult(
        overall=breakdown["overall"],
        breakdown=breakdown,
        samples=[sample_result(s, line, toolkit, strict)
                 for s, line, (toolkit, strict) in zip(samples, lines, pairs)],
        scorer_version=SCORER_VERSION,
        intervals=intervals,
        details=details,
        readings={STRICT: strict_figures(scores, strict_scores, intervals)},
    )


def strict_figures(scores: Sequence[SampleScore], strict_scores: Sequence[SampleScore],
                   intervals: Mapping[str, tuple[float, float]]) -> ReadingFigures:
    """The strict reading's figure set: its breakdown, its intervals (the headline's where no sample differs: the
    same samples, the same resamples) and whether it tells a submitter more of a hidden ground truth."""
    differs = [i for i, (a, b) in enumerate(zip(scores, strict_scores)) if a is not b and a.score != b.score]
    summary = summarize(strict_scores)
    return ReadingFigures(
        overall=100.0 * summary["overall"]["average_score"],
        breakdown=breakdown_of(summary),
        intervals=intervals_of(strict_scores) if differs else intervals,
        details={"num_invalid_response": summary["overall"]["num_invalid_response"],
                 "gt_errors": sum(1 for s in strict_scores if s.gt_error), "samples_differing": len(differs)},
        tells_more=any(strict_tells_more(scores[i], strict_scores[i]) for i in differs),
    )
