from __future__ import annotations

import pytest

from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION, open_messages, parse_choice, parse_true_false

OPTIONS = {"A": "left", "B": "right"}


@pytest.mark.parametrize("reply, expected", [("True", True), ("false", False), ("**True**", True), ("False.", False),
                                             ("<think>maybe true</think>\nFalse", False), ("Verdict: True", True)])
def test_true_false_replies_are_read(reply: str, expected: bool) -> None:
    assert parse_true_false(reply).correct is expected


@pytest.mark.parametrize("reply", ["", "Maybe", "True or False", "The output is correct", "Yes"])
def test_malformed_true_false_replies_are_undecided(reply: str) -> None:
    parsed = parse_true_false(reply)
    assert parsed.correct is None and parsed.problem


def test_choice_replies_map_to_letters_and_none_is_wrong() -> None:
    assert parse_choice("B", OPTIONS, "B").correct is True
    assert parse_choice("(a)", OPTIONS, "B").letter == "A"
    assert parse_choice("None", OPTIONS, "B").correct is False
    assert parse_choice("Z", OPTIONS, "B").correct is None


def test_open_prompt_gives_answer_hint_and_output() -> None:
    user = open_messages(answer="3", hint=None, output="three")[1]["content"]
    assert "Ground-truth answer: 3" in user and "Answer hint: None" in user and "Model output: three" in user
    assert PROMPT_VERSION


def test_the_built_in_prompts_are_versioned_by_their_hash_and_a_file_replaces_them() -> None:
    import json

    import pytest

    from scoring.benchmarks.plan.core import protocol as P

    assert P.PROMPT_VERSION == f"plan-judge/2#{P.BUILT_IN_PROMPTS.digest}" and len(P.BUILT_IN_PROMPTS.digest) == 16
    good = {"open_system": "S", "open_user": "{answer}|{hint}|{output}", "choice_system": "C",
            "choice_user": "{question}|{options}|{output}"}
    site = P.load_prompt_file(json.dumps(good), source="f.json")
    assert site.version.startswith("site#") and site.open_messages(answer="a", hint=None, output="o")[1]["content"] == "a|None|o"
    one_char = P.load_prompt_file(json.dumps({**good, "open_system": "S."}), source="f.json")
    assert one_char.digest != site.digest  # one character: another version, so no cached verdict is reused
    problems = {
        "not json": "f.json: not JSON (line 1",
        json.dumps([1]): "f.json: expected a JSON object",
        json.dumps({**good, "extra": "x"}): "f.json: unknown field(s) extra",
        json.dumps({k: v for k, v in good.items() if k != "choice_system"}): "f.json: 'choice_system' is missing",
        json.dumps({**good, "open_user": "{answer} {hint} {output} {gt}"}): "f.json: 'open_user' uses unknown placeholder(s) {gt}",
        json.dumps({**good, "choice_user": "{question} {output}"}): "f.json: 'choice_user' must contain {options}",
        json.dumps({**good, "open_user": "{answer} {hint} {output} {"}): "f.json: 'open_user' is not a valid template",
    }
    for text, message in problems.items():
        with pytest.raises(P.PromptFileError) as caught:
            P.load_prompt_file(text, source="f.json")
        assert str(caught.value).startswith(message), (text, str(caught.value))
    assert P.load_model_prompts(json.dumps(good), source="f.json", default=P.BUILT_IN_MODEL_PROMPTS) is P.BUILT_IN_MODEL_PROMPTS
    with pytest.raises(P.PromptFileError, match="'model_prompts' must be"):
        P.load_model_prompts(json.dumps({**good, "model_prompts": {"base": "x"}}), source="f.json",
                             default=P.BUILT_IN_MODEL_PROMPTS)


def test_the_built_in_open_judge_prompt_keeps_the_two_rules_the_paraphrase_had_dropped() -> None:
    """Issue 28: "Appendix B.2 gives the judge's exact system and user prompts; the hub's default is a paraphrase
    (it drops "Do not introduce alternative interpretations…" and "no explanation")". The paper's full text is not
    in this repository, so the default stays a labelled paraphrase, but it must no longer drop either rule."""
    from scoring.benchmarks.plan.core import protocol as P

    system = P.BUILT_IN_PROMPTS.open_system
    assert "Do not introduce alternative interpretations" in system
    assert "no explanation" in system
    assert P.BUILT_IN_LABEL == "plan-judge/2"  # other words: another label, so no verdict given under /1 is reused
