"""The shared reading of uploaded JSON Lines: line endings, undecodable lines as problems, the split's line bound."""
from __future__ import annotations

import io
import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.core.contract import SubmissionRejected
from scoring.core.jsonl import decode_json, json_lines, line_limit, text_lines


def test_line_limit_is_twice_the_split_and_never_less_than_a_thousand_spare():
    assert line_limit(0) == 1000 and line_limit(23) == 1023 and line_limit(1000) == 2000 and line_limit(5000) == 10000


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufeff"),
                        max_size=8), max_size=8),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_lines_end_at_a_newline_crlf_or_cr_read_from_text_or_bytes(lines, ending):
    text = ending.join(line.replace("\r", "").replace("\n", "") for line in lines)
    expected = [(n, line) for n, line in enumerate(text.split(ending) if text else [], start=1) if line.strip()]
    for source in (io.StringIO(text), io.BytesIO(text.encode())):
        assert [(line.number, line.text) for line in text_lines(source)] == expected


def test_blank_lines_are_skipped_and_a_byte_order_mark_is_allowed():
    lines = list(json_lines(io.BytesIO(b'\xef\xbb\xbf{"a": 1}\n\n  \r\n[2]\n')))
    assert [(line.number, line.value, line.error) for line in lines] == [(1, {"a": 1}, ""), (4, [2], "")]


@pytest.mark.parametrize("raw, words", [
    (b"{broken", "not valid JSON (Expecting property name"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"n": ' + b"9" * 5000 + b"}", f"more than {sys.get_int_max_str_digits():,} digits"),
    (b'{"a": "caf\xe9"}', "not UTF-8 text: byte 0xe9 at column 11"),
])
def test_what_cannot_be_decoded_is_a_problem_of_its_line_never_an_exception(raw, words):
    lines = list(json_lines(io.BytesIO(b'{"ok": 1}\n' + raw + b'\n{"ok": 3}\n')))
    assert [line.number for line in lines] == [1, 2, 3]
    assert lines[1].value is None and words in lines[1].error
    assert lines[2].value == {"ok": 3}


def test_decode_json_never_raises():
    assert decode_json(b'{"a": [1]}') == ({"a": [1]}, "")
    assert decode_json("[" * 100_000)[1].startswith("not valid JSON")


def test_reading_stops_at_the_first_line_past_the_bound_before_reading_on():
    def lines():
        for n in range(1, 10**9):
            if n > 1100:
                raise AssertionError("read past the bound")
            yield b"{}\n"

    with pytest.raises(SubmissionRejected) as refused:
        for _ in json_lines(lines(), samples=50):
            pass
    assert refused.value.message == (
        "Too many lines: this split has 50 samples; a file may hold at most 1,050 lines (one per sample, with room "
        "for mistakes). Reading stopped at line 1,051.")
    assert [(p.line, p.message) for p in refused.value.problems] == [(1051, refused.value.message)]


def test_blank_lines_do_not_count_against_the_bound():
    body = b"\n\n".join([json.dumps({"n": n}).encode() for n in range(1050)])
    assert len(list(json_lines(io.BytesIO(body), samples=50))) == 1050
