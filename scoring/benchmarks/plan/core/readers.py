"""Readers for PLAN-Bench items (JSONL `plan-item/1`, VLMEvalKit TSV) and predictions (JSONL `plan-pred/1`,
VLMEvalKit result sheets as TSV or xlsx).

Every problem is reported with its line (JSONL/TSV) or row (xlsx, 1-based like a spreadsheet) through
`SubmissionRejected` carrying `FileProblem`s; readers collect every problem of the file (reading is bounded by
the split's line limit) so a submitter sees all mistakes at once, counted in all and grouped by kind.
"""
from __future__ import annotations

import ast
import csv
import io
import json
from pathlib import Path
from typing import Any, Iterator

from scoring.benchmarks.plan.core.types import DIMENSION_OF, DIMENSIONS, SUBTASK_NAMES, Item, ItemType, Prediction
from scoring.core.contract import FileProblem, SubmissionRejected
from scoring.core.jsonl import json_lines, line_limit, too_many_lines

_SUBTASK_BY_NAME = {name.lower(): code for code, name in SUBTASK_NAMES.items()}
_SUBTASK_BY_CODE = {code.lower(): code for code in SUBTASK_NAMES}
_DIMENSION_BY_NAME = {name.lower(): name for name in DIMENSIONS}
csv.field_size_limit(1 << 30)  # VLMEvalKit TSVs carry base64 images in a cell


class _Problems:
    def __init__(self, what: str):
        self.what = what
        self.items: list[FileProblem] = []

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None:
        self.items.append(FileProblem(message=message, line=line, field=field))

    def raise_(self) -> None:
        first = self.items[0]
        more = f" (and {len(self.items) - 1} more problems)" if len(self.items) > 1 else ""
        raise SubmissionRejected(f"{self.what}: {first}{more}", self.items)

    def raise_if_any(self) -> None:
        if self.items:
            self.raise_()


def _decode(data: bytes, what: str) -> str:
    """UTF-8 text (a BOM is allowed); otherwise an error that says on which line the bad byte is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problem = FileProblem(
            f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} cannot be decoded "
            "(save the file as UTF-8)",
            line=line,
        )
        raise SubmissionRejected(f"{what}: {problem}", [problem]) from None


def _cell_id(value: Any) -> str:
    """Ids as text: spreadsheets turn `12` into 12 or 12.0."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return "" if value is None else str(value).strip()


# --- predictions ------------------------------------------------------------------------------------------


FORMAT_NAMES = {"jsonl": "plan-pred/1 JSON Lines", "tsv": "VLMEvalKit result sheet (TSV)",
                "xlsx": "VLMEvalKit result sheet (xlsx)"}
# Fields a prediction line may carry its answer under in other tools; named in the problem when 'prediction' is not.
_OTHER_ANSWER_FIELDS = ("response", "output", "pred", "answer_pred", "model_output", "text")


def sniff_format(name: str, data: bytes) -> str:
    """"xlsx", "tsv" or "jsonl", from the content first (a zip is a workbook, a first character '{' or '[' is JSON, a
    tab in the first line is a sheet), then from the name: a VLMEvalKit sheet saved as .jsonl is still a sheet."""
    suffix = Path(name).suffix.lower()
    if data[:2] == b"PK":
        return "xlsx"
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] in (b"{", b"["):
        return "jsonl"
    if b"\t" in stripped.split(b"\n", 1)[0]:
        return "tsv"
    if suffix in (".xlsx", ".xlsm"):
        return "xlsx"
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    return "tsv"


def example_prediction(sample: Any) -> dict[str, str]:
    """One plan-pred/1 line for an item (a `SampleRecord`, no ground truth): its first option for a single-choice
    item, a placeholder answer for an open one. For the format page's example file."""
    options = sample.inputs.get("options") or {}
    return {"id": sample.key, "prediction": next(iter(sorted(options)), "A") if options else "I do not know."}


def wrong_file_kind(head: bytes, *, complete: bool) -> str | None:
    """From the start of a file: a message when it is plainly not predictions, but the questions (the split's items
    file as JSON Lines, or a VLMEvalKit input sheet: a question column and no prediction column); else None."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:2] == b"PK" or not stripped:
        return None
    lines = stripped.split(b"\n")
    if not complete:
        lines = lines[:-1]
    if stripped[:1] == b"{":
        records = []
        for text in lines:
            try:
                record = json.loads(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                records.append(record)
        if records and all("question" in r and "prediction" not in r for r in records):
            return (f"This looks like the split's items (the questions), not predictions: the first {len(records)} "
                    "line(s) have a 'question' and no 'prediction'. Run the model on them and upload lines "
                    "{\"id\": ..., \"prediction\": ...}.")
        return None
    if not lines:
        return None
    header = [cell.strip() for cell in lines[0].decode("utf-8", "replace").split("\t")]
    if "question" in header and "prediction" not in header:
        return ("This looks like a VLMEvalKit input sheet (the questions), not a result sheet: its header has a "
                "'question' column and no 'prediction' column. Run the model on it and upload the sheet VLMEvalKit "
                "writes.")
    return None


def read_predictions(path: str | Path) -> list[Prediction]:
    path = Path(path)
    return parse_predictions(path.read_bytes(), name=path.name)


def parse_predictions(data: bytes, *, name: str = "predictions.jsonl", samples: int | None = None) -> list[Prediction]:
    """Predictions from JSONL, TSV or xlsx bytes; duplicates, missing fields and empty files are rejected. With
    `samples`, the split's item count, rows past its bound (scoring.core.jsonl.line_limit) reject the file as soon
    as they are reached."""
    fmt = sniff_format(name, data)
    what = f"Prediction file '{name}'"
    if not data.strip():
        problem = FileProblem("the file is empty: it has no predictions", line=1)
        raise SubmissionRejected(f"{what}: {problem}", [problem])
    if fmt == "xlsx":
        rows = _xlsx_prediction_rows(data, what)
        where = "row"
    elif fmt == "tsv":
        rows = _tsv_prediction_rows(_decode(data, what), what)
        where = "line"
    else:
        rows = _jsonl_prediction_rows(data, what)
        where = "line"
    limit = line_limit(samples) if samples is not None else None
    problems = _Problems(what)
    seen: dict[str, int] = {}
    out: list[Prediction] = []
    for count, (line, pid, text, issue) in enumerate(rows, start=1):
        if limit is not None and count > limit:
            raise too_many_lines(samples or 0, line, unit=f"{where}s")
        if issue:
            message = f"row {line}: {issue[1]}" if where == "row" else issue[1]
            problems.add(message, line=line, field=issue[0] or None)
            continue
        if pid in seen:
            prefix = f"row {line}: " if where == "row" else ""
            problems.add(f"{prefix}id '{pid}' appears again (first on {where} {seen[pid]})", line=line, field="id")
            continue
        seen[pid] = line
        out.append(Prediction(id=pid, text=text, line=line))
    problems.raise_if_any()
    if not out:
        problem = FileProblem("the file has no predictions")
        raise SubmissionRejected(f"{what}: {problem}", [problem])
    return out


_Row = tuple[int, str, str, "tuple[str, str] | None"]


def _jsonl_prediction_rows(data: bytes, what: str) -> Iterator[_Row]:
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"[":
        problem = FileProblem("expected JSON Lines (one object per line), found a JSON array", line=1)
        raise SubmissionRejected(f"{what}: {problem}", [problem])
    for line in json_lines(io.BytesIO(data)):
        number, record = line.number, line.value
        if line.error:
            yield number, "", "", ("", line.error)
            continue
        if not isinstance(record, dict):
            yield number, "", "", ("", "each line must be a JSON object like {\"id\": ..., \"prediction\": ...}")
            continue
        raw_id = record.get("id", record.get("index"))
        if raw_id is not None and not isinstance(raw_id, (str, int, float)):
            yield number, "", "", ("id", f"'id' must be text or a number, not a {type(raw_id).__name__}")
            continue
        pid = _cell_id(raw_id)
        if not pid:
            yield number, "", "", ("id", "missing 'id'")
            continue
        if "prediction" not in record or record["prediction"] is None:
            yield number, pid, "", ("prediction", f"missing 'prediction' for id '{pid}'{_missing_prediction_hint(record)}")
            continue
        value = record["prediction"]
        if not isinstance(value, (str, int, float)):
            yield number, pid, "", ("prediction", f"'prediction' for id '{pid}' must be text")
            continue
        yield number, pid, str(value), None


def _missing_prediction_hint(record: dict[str, Any]) -> str:
    """Why a line may have no 'prediction': it is an item of the split (its question), or the answer is under
    another tool's field name."""
    if "question" in record and not any(name in record for name in _OTHER_ANSWER_FIELDS):
        return ("; this looks like the split's items (the questions), not predictions: run the model on them and "
                "upload lines {\"id\": ..., \"prediction\": ...}")
    other = next((name for name in _OTHER_ANSWER_FIELDS if name in record), None)
    return f" (the line has '{other}': name that field 'prediction')" if other else ""


def _header_problem(what: str, fmt: str, found: list[str], missing: str) -> SubmissionRejected:
    where = "row 1" if fmt == "xlsx" else "line 1"
    hint = ""
    if missing == "prediction" and "question" in found:
        hint = ("; this looks like a VLMEvalKit input sheet (the questions), not a result sheet: run the model on "
                "it and upload the sheet VLMEvalKit writes, which has a 'prediction' column")
    problem = FileProblem(
        f"no '{missing}' column in the header ({where}); found: {', '.join(found) or 'nothing'}{hint}", line=1,
        field=missing,
    )
    return SubmissionRejected(f"{what}: {problem}", [problem])


def _tsv_prediction_rows(text: str, what: str) -> Iterator[_Row]:
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    header = [h.strip() for h in next(reader, [])]
    for required in ("index", "prediction"):
        if required not in header:
            raise _header_problem(what, "tsv", header, required)
    i_id, i_pred = header.index("index"), header.index("prediction")
    for row in reader:
        number = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(i_id, i_pred):
            yield number, "", "", ("", f"{len(row)} columns, the header has {len(header)}")
            continue
        pid = _cell_id(row[i_id])
        if not pid:
            yield number, "", "", ("index", "empty 'index'")
            continue
        yield number, pid, row[i_pred], None


def _xlsx_prediction_rows(data: bytes, what: str) -> Iterator[_Row]:
    import openpyxl  # imported here: only xlsx uploads pay for it

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many types for a broken file
        problem = FileProblem(f"not a readable xlsx workbook ({type(exc).__name__}: {exc})")
        raise SubmissionRejected(f"{what}: {problem}", [problem]) from None
    sheet = book.worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = [str(h).strip() if h is not None else "" for h in next(rows, ())]
    for required in ("index", "prediction"):
        if required not in header:
            book.close()
            raise _header_problem(what, "xlsx", [h for h in header if h], required)
    i_id, i_pred = header.index("index"), header.index("prediction")
    for number, row in enumerate(rows, start=2):
        if row is None or all(cell in (None, "") for cell in row):
            continue
        pid = _cell_id(row[i_id] if i_id < len(row) else None)
        if not pid:
            yield number, "", "", ("index", "empty 'index'")
            continue
        value = row[i_pred] if i_pred < len(row) else None
        yield number, pid, "" if value is None else _cell_id(value) if isinstance(value, float) else str(value), None
    book.close()


# --- items ------------------------------------------------------------------------------------------------


def read_items(path: str | Path) -> list[Item]:
    path = Path(path)
    return parse_items(path.read_bytes(), name=path.name)


def parse_items(data: bytes, *, name: str = "items.jsonl") -> list[Item]:
    what = f"Item file '{name}'"
    text = _decode(data, what)
    fmt = sniff_format(name, data)
    items = list(_tsv_items(text, what) if fmt == "tsv" else _jsonl_items(text, what))
    if not items:
        problem = FileProblem("the file has no items")
        raise SubmissionRejected(f"{what}: {problem}", [problem])
    return items


def _subtask_code(value: str) -> str | None:
    value = value.strip()
    return _SUBTASK_BY_CODE.get(value.lower()) or _SUBTASK_BY_NAME.get(value.lower())


def _build_item(record: dict[str, Any], line: int, problems: _Problems, seen: dict[str, int]) -> Item | None:
    before = len(problems.items)
    item_id = _cell_id(record.get("id"))
    if not item_id:
        problems.add("missing 'id'", line=line, field="id")
        return None
    if item_id in seen:
        problems.add(f"id '{item_id}' appears again (first on line {seen[item_id]})", line=line, field="id")
        return None
    seen[item_id] = line
    subtask = _subtask_code(str(record.get("subtask") or ""))
    if subtask is None:
        problems.add(
            f"unknown subtask '{record.get('subtask')}' (expected one of {', '.join(SUBTASK_NAMES)})",
            line=line,
            field="subtask",
        )
    dimension_raw = str(record.get("dimension") or "").strip()
    dimension = _DIMENSION_BY_NAME.get(dimension_raw.lower()) or (DIMENSION_OF.get(subtask) if subtask else None)
    if dimension_raw and dimension_raw.lower() not in _DIMENSION_BY_NAME:
        problems.add(f"unknown dimension '{dimension_raw}'", line=line, field="dimension")
    elif subtask and dimension and DIMENSION_OF[subtask] != dimension:
        problems.add(f"subtask {subtask} belongs to {DIMENSION_OF[subtask]}, not {dimension}", line=line, field="dimension")
    try:
        item_type = ItemType(str(record.get("type") or ""))
    except ValueError:
        problems.add(f"'type' must be 'single_choice' or 'open', not '{record.get('type')}'", line=line, field="type")
        item_type = ItemType.OPEN
    options = record.get("options") or None
    if item_type is ItemType.SINGLE_CHOICE:
        if not isinstance(options, dict) or not options:
            problems.add("a single-choice item needs 'options' {\"A\": ..., ...}", line=line, field="options")
        elif str(record.get("answer", "")).strip() not in options:
            problems.add(f"answer '{record.get('answer')}' is not one of the options", line=line, field="answer")
    answer = record.get("answer")
    if answer is None or str(answer).strip() == "":
        problems.add("missing 'answer'", line=line, field="answer")
    images = record.get("images") or []
    if isinstance(images, str):
        images = [images]
    if len(problems.items) > before or subtask is None or dimension is None:
        return None
    hint = record.get("answer_hint")
    return Item(
        id=item_id,
        dimension=dimension,
        subtask=subtask,
        type=item_type,
        question=str(record.get("question") or ""),
        answer=str(answer).strip(),
        images=tuple(str(i) for i in images),
        options={str(k): str(v) for k, v in options.items()} if isinstance(options, dict) else None,
        answer_hint=str(hint) if hint not in (None, "") else None,
        line=line,
        embedded_images=tuple(record.get("_embedded_images", ())),
    )


def _jsonl_items(text: str, what: str) -> Iterator[Item]:
    problems = _Problems(what)
    seen: dict[str, int] = {}
    out = []
    for line in json_lines(io.StringIO(text)):
        number, record = line.number, line.value
        if line.error:
            problems.add(line.error, line=number)
            continue
        if not isinstance(record, dict):
            problems.add("each line must be a JSON object", line=number)
            continue
        item = _build_item(record, number, problems, seen)
        if item:
            out.append(item)
    problems.raise_if_any()
    return iter(out)


def _list_cell(value: str) -> list[str]:
    value = value.strip()
    if value.startswith("["):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed = None
        if isinstance(parsed, list):
            return [str(v) for v in parsed]
    return [value] if value else []


def _tsv_items(text: str, what: str) -> Iterator[Item]:
    """VLMEvalKit layout: index, image | image_path, question, A.., answer, category (subtask), l2-category
    (dimension), hint (the answer hint: it goes to the judge only)."""
    reader = csv.DictReader(io.StringIO(text), delimiter="\t")
    header = [h.strip() for h in reader.fieldnames or []]
    for required in ("index", "question", "answer", "category"):
        if required not in header:
            raise _header_problem(what, "tsv", header, required)
    letters = [h for h in header if len(h) == 1 and h.isupper()]
    problems = _Problems(what)
    seen: dict[str, int] = {}
    out = []
    for row in reader:
        number = reader.line_num
        row = {(k or "").strip(): (v or "") for k, v in row.items()}
        options = {k: row[k].strip() for k in letters if row.get(k, "").strip() and row[k].strip().lower() != "nan"}
        record: dict[str, Any] = {
            "id": row.get("index"),
            "subtask": row.get("category"),
            "dimension": row.get("l2-category") or None,
            "type": "single_choice" if options else "open",
            "question": row.get("question"),
            "options": options or None,
            "answer": row.get("answer"),
            "answer_hint": row.get("hint") if row.get("hint", "").strip().lower() not in ("", "nan") else None,
            "images": _list_cell(row.get("image_path", "")),
            "_embedded_images": _list_cell(row.get("image", "")),
        }
        item = _build_item(record, number, problems, seen)
        if item:
            out.append(item)
    problems.raise_if_any()
    return iter(out)


def unknown_prediction_ids(items: list[Item], predictions: list[Prediction]) -> list[FileProblem]:
    """A problem for every prediction whose id is not an item of the split, with its line."""
    known = {item.id for item in items}
    return [FileProblem(f"unknown id '{p.id}' (not an item of this split)", line=p.line, field="id")
            for p in predictions if p.id not in known]


def check_prediction_ids(items: list[Item], predictions: list[Prediction]) -> None:
    """A prediction for an id the split does not have is the submitter's error; say which lines."""
    problems = _Problems("Prediction file")
    for problem in unknown_prediction_ids(items, predictions):
        problems.add(problem.message, line=problem.line, field=problem.field)
    problems.raise_if_any()
