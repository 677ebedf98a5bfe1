"""PLAN-Bench's typed sample details: each field from the first of the names a scorer may use that is set."""
from scoring.benchmarks.plan.core.details import PlanSampleDetails, options_of


def test_fields_read_the_first_name_that_is_set():
    details = PlanSampleDetails.from_details({"output": "", "response": "I think A", "extracted_answer": "A",
                                              "judgement": "correct", "decided_by": None, "judge": "rules",
                                              "reasoning_stripped": "<think>…</think>"})
    assert details == PlanSampleDetails(output="I think A", extracted="A", verdict="correct", decided_by="rules",
                                        reasoning="<think>…</think>")


def test_details_that_are_no_mapping_read_as_empty():
    assert PlanSampleDetails.from_details(None) == PlanSampleDetails()  # type: ignore[arg-type]
    assert PlanSampleDetails.from_details({}) == PlanSampleDetails()


def test_options_are_lettered_when_given_as_a_list():
    assert options_of({"options": {"A": "cup", "B": "box"}}) == [("A", "cup"), ("B", "box")]
    assert options_of({"choices": ["cup", "box"]}) == [("A", "cup"), ("B", "box")]
    assert options_of({"question": "?"}) == [] and options_of(None) == []
