"""The one reader of thinking models' outputs, shared by EPIC's raw reader and PLAN's cascade."""
from scoring.benchmarks.epic.core.raw import extract
from scoring.core.reasoning import FINAL, THINK, UNCLOSED, answer_part, strip_think


def test_strip_think_is_the_epic_toolkit_rule():
    assert strip_think("plain") == "plain"
    assert strip_think("<think>a</think>  B ") == "B"
    assert strip_think("<think>x</think>one<think>y</think>two") == "onetwo"
    assert strip_think("<think>cut off by the token limit") is None


def test_answer_part_takes_the_text_after_the_trace_and_the_last_final_answer_marker():
    assert answer_part("B") == answer_part("B")  # nothing removed
    assert answer_part("B").removed == () and answer_part("B").note == ""
    a = answer_part("<think>A is tempting, but C blocks it. Final answer: A? no.</think>\n**Final Answer:** B")
    assert a.text == "B" and a.removed == (THINK, FINAL)
    assert "<think>" in a.note and "Final answer" in a.note
    assert answer_part("Step 1 ... final answer is: open the fridge").text == "open the fridge"
    assert answer_part("Final answer：C").text == "C"  # full-width colon
    assert answer_part("the final answers differ: A").removed == ()  # not the marker
    assert answer_part("Final answer:").text == "Final answer:"  # nothing after it: the output as it is
    cut = answer_part("<think>still thinking")
    assert cut.text is None and cut.removed == (UNCLOSED,) and "never closed" in cut.note


def test_epic_reader_uses_the_shared_rule():
    answer = '{"localization": [[1, 2, 3, 4]], "count": 1}'
    tl = ("TargetLocalization", "Category")
    assert extract(f"<think>maybe [[0,0,1,1]]</think>{answer}", *tl) == extract(answer, *tl)
    assert extract(f"<think>{answer}", *tl) is None
