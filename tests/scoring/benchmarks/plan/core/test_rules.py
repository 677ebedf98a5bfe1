from __future__ import annotations

from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.benchmarks.plan.core.rules import judge_open, normalise, parse_hint


@pytest.mark.parametrize(
    "answer, output, hint",
    [
        ("3", "three", None),
        ("3", "There are 3 mugs.", None),
        ("3", "3.0", None),
        ("the kitchen", "Kitchen", None),
        ("B, A, C", "b -> a -> c", None),
        ("mug", "cup", "Also accept: cup | beaker"),
        ("open fridge, take milk, take butter, close fridge", "open fridge, take butter, take milk, close fridge",
         "Steps 2 and 3 may be swapped"),
        ("red, blue", "blue, red", "In any order"),
        ("2", "2 trips", None),
        ("yes", "Yes.", None),
        ("kitchen -> hall", "Final answer: kitchen -> hall", None),
    ],
)
def test_rule_judge_accepts_certain_matches(answer: str, output: str, hint: str | None) -> None:
    assert judge_open(answer, output, hint).correct is True


@pytest.mark.parametrize(
    "answer, output, hint",
    [
        ("3", "4", None),
        ("3", "", None),
        ("yes", "no", None),
        ("open fridge, take milk, take butter, close fridge", "take milk, open fridge, take butter, close fridge",
         "Steps 2 and 3 may be swapped"),
        ("B, A, C", "C, A, B", None),
    ],
)
def test_rule_judge_rejects_certain_mismatches(answer: str, output: str, hint: str | None) -> None:
    assert judge_open(answer, output, hint).correct is False


@pytest.mark.parametrize(
    "answer, output, hint",
    [
        ("3", "not 3 but 4", None),  # several numbers: not certain
        ("3", "4", "Counting the handle-less cup is also fine"),  # free-text hint: never False by rule
        ("B, A, C", "C, A, B", "Some orders are equivalent, see the notes"),
        ("mug", "the ceramic cup", None),  # synonym: the LLM or a person decides
        ("left", "to the left side", None),
    ],
)
def test_rule_judge_leaves_uncertain_cases_undecided(answer: str, output: str, hint: str | None) -> None:
    assert judge_open(answer, output, hint).correct is None


def test_option_like_capital_a_is_not_dropped_as_an_article() -> None:
    assert normalise("B, C, A") != normalise("B, A, C")


def test_hint_json_form_is_understood() -> None:
    hint = parse_hint('{"accept": ["cup"], "unordered": [[1, 2]]}')
    assert hint.understood and hint.alternatives == ("cup",) and hint.unordered_groups == ((0, 1),)


def test_free_text_hint_is_not_understood() -> None:
    assert not parse_hint("The mug may also be described by its colour.").understood


# Plain words: not "then" (a step separator), nor "an"/"the", which normalise drops before a word but keeps at the
# end of a phrase ("an, aa" keeps "an"; "an aa" does not), so they are no plain words for these properties.
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8).filter(
    lambda w: w not in ("then", "an", "the")
)


@given(st.lists(words, min_size=1, max_size=5))
def test_any_output_equal_to_the_answer_is_correct(parts: list[str]) -> None:
    answer = ", ".join(parts)
    assert judge_open(answer, answer.upper(), None).correct is True


@given(st.lists(words, min_size=2, max_size=4, unique=True))
def test_any_order_hint_accepts_every_permutation(parts: list[str]) -> None:
    answer = ", ".join(parts)
    for perm in permutations(parts):
        assert judge_open(answer, " -> ".join(perm), "any order").correct is True


@given(st.lists(words, min_size=1, max_size=6))
def test_punctuation_and_spacing_never_matter(parts: list[str]) -> None:
    assert normalise(", ".join(parts)) == normalise("  ".join(parts) + "!")


def test_malformed_json_hint_is_free_text() -> None:
    assert not parse_hint('{"unordered": [["x"]]}').understood
    assert judge_open("B, A", "A, B", '{"unordered": [["x"]]}').correct is None
