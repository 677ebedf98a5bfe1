"""The shared bounds on untrusted JSON and text (scoring.core.bounded): lines read with a bounded buffer, nesting
found without recursion, array items one at a time."""
from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.core.bounded import (
    ArrayItem,
    TooDeep,
    array_items,
    bounded_lines,
    document_error,
    loads,
    nested_deeper_than,
)
from scoring.core.contract import SubmissionRejected


def test_lines_end_at_lf_crlf_and_cr_also_across_blocks():
    assert list(bounded_lines(io.BytesIO(b"a\r\nb\rc\n\nd"))) == [b"a", b"b", b"c", b"", b"d"]
    assert list(bounded_lines(["ab", "c\r", "\nd"])) == ["abc", "d"]
    assert list(bounded_lines(io.StringIO("x\r"))) == ["x"]


def test_a_line_past_the_limit_is_refused_with_its_number_before_it_is_read_whole():
    source = io.BytesIO(b"{}\n" + b"x" * 10_000_000)
    with pytest.raises(SubmissionRejected) as caught:
        list(bounded_lines(source, max_bytes=1000, name="pred.jsonl"))
    assert caught.value.message.startswith("pred.jsonl, line 2: a line of more than 1,000 bytes")
    assert caught.value.problems[0].line == 2
    assert source.tell() < 200_000  # stopped reading a block or so past the limit


def test_a_line_of_exactly_the_limit_is_read():
    assert list(bounded_lines(io.BytesIO(b"y" * 1000 + b"\n"), max_bytes=1000)) == [b"y" * 1000]


@given(st.lists(st.text(alphabet="ab\r\n", max_size=30), max_size=8))
def test_lines_are_those_of_the_whole_text_however_it_is_cut(chunks):
    text = "".join(chunks)
    expected = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if expected[-1] == "":
        expected.pop()
    assert [line for line in bounded_lines(chunks)] == expected or (not text and not expected)


@given(st.lists(st.binary(max_size=30).map(lambda b: bytes(b"ab\r\n"[x % 4] for x in b)), max_size=8))
def test_bytes_lines_are_those_of_the_whole_bytes_however_they_are_cut(chunks):
    """Blocks with and without a \\r (split at \\n alone, or by the pattern) give the lines of the whole."""
    data = b"".join(chunks)
    expected = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    assert list(bounded_lines(chunks)) == expected or (not data and not expected)


@pytest.mark.parametrize("text, depth", [("1", 0), ("[]", 1), ('[{"a": [1]}]', 3), ('["[[[[[", {}]', 2),
                                         (r'["\\", [[]]]', 3), (r'["\"[[[", []]', 2), ("[" * 1500 + "]" * 1500, 1500)])
def test_nesting_is_measured_without_counting_brackets_in_strings(text, depth):
    assert not nested_deeper_than(text, depth)
    assert depth == 0 or nested_deeper_than(text, depth - 1)
    assert nested_deeper_than(text.encode(), depth - 1) == nested_deeper_than(text, depth - 1)


@given(st.recursive(st.none() | st.integers() | st.text(alphabet='[]{}"\\a'), lambda inner: st.lists(inner) |
                    st.dictionaries(st.text(alphabet='[]{}"\\a', max_size=3), inner), max_leaves=20))
def test_nesting_agrees_with_the_structure(value):
    def depth(v):
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0
    d = depth(value)
    text = json.dumps(value)
    assert not nested_deeper_than(text, d) and (d == 0 or nested_deeper_than(text, d - 1))


def test_loads_refuses_a_deep_nest_before_decoding():
    with pytest.raises(TooDeep, match="nested too deeply to read .more than 64 deep"):
        loads("[" * 1500 + "]" * 1500)
    assert loads('{"a": [[1]]}') == {"a": [[1]]}


def test_array_items_come_one_at_a_time_and_a_long_item_is_refused():
    assert list(array_items(' [1, {"a": [2]}, "x"] ')) == [ArrayItem(1, 1), ArrayItem(2, {"a": [2]}), ArrayItem(3, "x")]
    assert list(array_items("[]")) == []
    big = "[1, [" + "0," * 100_000 + "0]]"
    items = array_items(big, max_bytes=10_000)
    assert next(items) == ArrayItem(1, 1)
    with pytest.raises(SubmissionRejected, match="item 2: a item of more than 10,000 bytes"):
        next(items)
    assert [i.value for i in array_items(big, max_bytes=1_000_000)][1][-1] == 0
    with pytest.raises(json.JSONDecodeError):
        list(array_items("[1 2]"))


def test_a_long_number_at_a_window_edge_is_read_whole():
    text = "[1." + "0" * 70_000 + "1, 2]"
    assert [item.value for item in array_items(text, max_bytes=1_000_000)] == [1.0, 2]


def test_a_json_document_is_checked_within_the_bounds():
    assert document_error(b"[{}, {}]") == ""
    assert "nested too deeply" in document_error(b'{"a": ' + b"[" * 100 + b"]" * 100 + b"}")
    assert "not valid JSON" in document_error(b"{")
