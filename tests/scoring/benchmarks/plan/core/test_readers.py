from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest

from scoring.benchmarks.plan.core.readers import check_prediction_ids, parse_items, parse_predictions, read_items
from scoring.benchmarks.plan.core.types import ItemType
from scoring.core.contract import SubmissionRejected


def _xlsx(rows: list[list]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_items_jsonl_are_read_with_types_images_and_hints(items_file: Path) -> None:
    items = read_items(items_file)
    assert [i.id for i in items] == ["pc-1", "oo-1", "dp-1"]
    assert items[0].images == ("a.png", "b.png") and items[0].type is ItemType.OPEN
    assert items[1].options == {"A": "red box", "B": "blue box", "C": "green ball"}
    assert items[2].answer_hint == "Steps 2 and 3 may be swapped"


def test_item_with_unknown_subtask_and_bad_answer_is_reported_by_line() -> None:
    data = (
        b'{"id": "x", "subtask": "OO", "type": "open", "answer": "1"}\n'
        b'{"id": "y", "subtask": "ZZ", "type": "open", "answer": "1"}\n'
        b'{"id": "z", "subtask": "OO", "type": "single_choice", "options": {"A": "a"}, "answer": "C"}\n'
    )
    with pytest.raises(SubmissionRejected) as err:
        parse_items(data)
    assert [(p.line, p.field) for p in err.value.problems] == [(2, "subtask"), (3, "answer")]


def test_vlmevalkit_tsv_items_map_category_to_subtask_and_hint_to_answer_hint() -> None:
    tsv = (
        "index\timage_path\tquestion\tA\tB\tanswer\tcategory\tl2-category\thint\n"
        "7\t['7/0.jpg', '7/1.jpg']\tWhich?\tleft\tright\tA\tSpatial Relations\tSpatial Cognition\tnan\n"
        "8\t8.jpg\tHow many?\t\t\t3\tPC\tTemporal Reasoning\tAlso accept: three\n"
    )
    items = parse_items(tsv.encode(), name="plan.tsv")
    assert items[0].id == "7" and items[0].subtask == "SpR" and items[0].type is ItemType.SINGLE_CHOICE
    assert items[0].images == ("7/0.jpg", "7/1.jpg") and items[0].answer_hint is None
    assert items[1].type is ItemType.OPEN and items[1].answer_hint == "Also accept: three"


def test_predictions_jsonl_duplicate_id_names_both_lines() -> None:
    data = b'{"id": "a", "prediction": "1"}\n{"id": "b", "prediction": "2"}\n{"id": "a", "prediction": "3"}\n'
    with pytest.raises(SubmissionRejected) as err:
        parse_predictions(data)
    problem = err.value.problems[0]
    assert problem.line == 3 and problem.field == "id" and "first on line 1" in problem.message


def test_empty_prediction_file_is_rejected() -> None:
    with pytest.raises(SubmissionRejected, match="empty"):
        parse_predictions(b"\n \n")


def test_non_utf8_prediction_file_names_the_line_of_the_bad_byte() -> None:
    data = '{"id": "a", "prediction": "ok"}\n{"id": "b", "prediction": "caf\u00e9"}\n'.encode("latin-1")
    with pytest.raises(SubmissionRejected) as err:
        parse_predictions(data)
    assert err.value.problems[0].line == 2 and "UTF-8" in err.value.message


def test_invalid_json_and_missing_prediction_are_reported_per_line() -> None:
    data = b'{"id": "a", "prediction": "1"}\n{"id": "b" "prediction": 2}\n{"id": "c"}\n'
    with pytest.raises(SubmissionRejected) as err:
        parse_predictions(data)
    assert [(p.line, p.field) for p in err.value.problems] == [(2, None), (3, "prediction")]


def test_unknown_ids_are_rejected_with_their_lines(items_file: Path) -> None:
    items = read_items(items_file)
    predictions = parse_predictions(b'{"id": "pc-1", "prediction": "3"}\n{"id": "nope", "prediction": "x"}\n')
    with pytest.raises(SubmissionRejected) as err:
        check_prediction_ids(items, predictions)
    assert err.value.problems[0].line == 2 and "nope" in err.value.problems[0].message


def test_xlsx_result_sheet_is_read_with_numeric_index_as_text() -> None:
    data = _xlsx([["index", "question", "prediction"], [7, "q", "A"], [8.0, "q", 3.0], [9, "q", None]])
    predictions = parse_predictions(data, name="model_PLAN.xlsx")
    assert [(p.id, p.text, p.line) for p in predictions] == [("7", "A", 2), ("8", "3", 3), ("9", "", 4)]


def test_xlsx_without_prediction_column_is_rejected_with_the_header_row() -> None:
    data = _xlsx([["index", "question", "answer"], [1, "q", "A"]])
    with pytest.raises(SubmissionRejected) as err:
        parse_predictions(data, name="result.xlsx")
    problem = err.value.problems[0]
    assert problem.line == 1 and problem.field == "prediction" and "index, question, answer" in problem.message


def test_xlsx_duplicate_index_names_rows() -> None:
    data = _xlsx([["index", "prediction"], [1, "A"], [2, "B"], [1, "C"]])
    with pytest.raises(SubmissionRejected) as err:
        parse_predictions(data, name="result.xlsx")
    assert err.value.problems[0].line == 4 and "row 4" in err.value.problems[0].message


def test_tsv_result_sheet_is_read() -> None:
    data = b"index\tquestion\tprediction\n1\tq\tThe answer is B\n2\tq\t\n"
    assert [(p.id, p.text) for p in parse_predictions(data, name="r.tsv")] == [("1", "The answer is B"), ("2", "")]
