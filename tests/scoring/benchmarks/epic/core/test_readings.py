"""Both readings of a record at once (`score_readings`), and what the strict one tells a submitter.

Issue 28, "Comparable rows on one board": "EPIC's default mode (deviation B1) scores an unparseable answer on an
empty-ground-truth sample 0 where the toolkit — which produced every reported row — gives 1.0 ... score uploads the
toolkit's way by default ... keep the stricter reading as a labelled second figure".
"""
from __future__ import annotations

import copy
import itertools

import pytest

from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.core import fields as F
from scoring.benchmarks.epic.core.scorer import (
    Options,
    SampleScore,
    score_readings,
    score_sample,
    strict_tells_more,
)
from scoring.benchmarks.epic.core.taxonomy import CR, FP, PR, TL, VM, family
from tests.scoring.benchmarks.epic.core.helpers import record, tl_gt

UNPARSEABLE = "I cannot tell from this image."
LOCALIZATIONS = (UNPARSEABLE, [UNPARSEABLE], ["No Valid Response"], ["Not Required"], "Not Required", [], None)
COUNTS = (["Not Required"], [0], [1], [2], ["three"], [["Not Required"]])
BINARIES = ([True], [False], ["Not Required"], ["maybe"])
PATHS = (["Not Required"], "garbage", [[10, 470], [320, 240]])
FIELDS = (("formatted_response_localization", True), ("formatted_response_path", True),
          ("formatted_response_count", False), ("formatted_response_binary", False))


def cases():
    """(category, task type, raw GT) of every demo leaf, the GroundDetection one also with an empty GT, and a TL
    sample with an empty GT under each pair of count flags (the flags that decide TL's weights)."""
    out = []
    for s in demo.make_split(5, per_leaf=1):
        out.append((s.leaf.category, s.leaf.name, s.gt))
        if s.leaf.name == "GroundDetection":
            empty = copy.deepcopy(s.gt)
            empty["mask_annotation"]["masklet_ground"] = []
            out.append((s.leaf.category, s.leaf.name, empty))
    for precise, in_desc in itertools.product((False, True), repeat=2):
        out.append(("TargetLocalization", "Color", tl_gt([], 0, precise=precise, in_desc=in_desc)))
    return out


def records(category: str, task_type: str):
    fam = family(category, task_type)
    paths = PATHS if fam == FP else (None,)
    binaries = BINARIES if fam == PR else (None,)
    counts = COUNTS if fam in (TL, CR, VM) else (None,)
    localizations = (None,) if fam == FP else LOCALIZATIONS
    for loc, count, binary, path in itertools.product(localizations, counts, binaries, paths):
        yield record(category, task_type, loc=loc, count=count, binary=binary, path=path)


def strict_as_the_submitter_can_tell(rec: dict, toolkit: SampleScore) -> float | None:
    """The strict score from what a submitter sees of the toolkit's (its score and the component scores, never the
    weights) and from their own answer: B1 zeroes each field whose sentinel reading differs; the weights are the
    fixed ones, or in TL and CR the ones the toolkit's total gives away. None where they cannot be told."""
    touched = {name for name, expects_list in FIELDS
               if F.sentinel(rec.get(name), expects_list=expects_list, compat=True)
               != F.sentinel(rec.get(name), expects_list=expects_list, compat=False)}
    c = toolkit.components
    loc, cnt, s = c["localization_score"], c["count_score"], toolkit.score
    fam = family(toolkit.category, toolkit.task_type)
    if fam in (TL, CR):
        if loc == cnt:
            weights = None
        else:
            w_count = (loc - s) / (loc - cnt)
            weights = {"localization": 1 - w_count, "count": w_count}
    elif fam in (VM,):
        weights = {"localization": 0.5, "count": 0.5}
    elif fam == PR:
        weights = {"localization": 0.5, "binary": 0.5}
    elif fam == FP:
        weights = {"path": 1.0}
    else:
        weights = {"localization": 1.0}
    lost = {"localization": loc if "formatted_response_localization" in touched else 0.0,
            "count": cnt if "formatted_response_count" in touched else 0.0,
            "binary": c["binary_score"] if "formatted_response_binary" in touched else 0.0,
            "path": c["path_score"] if "formatted_response_path" in touched else 0.0}
    if weights is None:
        return s if all(v == 0 for v in lost.values()) else None
    return s - sum(weights.get(k, 0.0) * v for k, v in lost.items())


def test_both_readings_at_once_are_each_reading_alone_and_the_strict_one_tells_no_more_than_it_should():
    """"score uploads the toolkit's way by default ... keep the stricter reading as a labelled second figure": the
    pair `score_readings` gives is exactly what scoring under each reading alone gives (the strict one rescored only
    where it can differ), and wherever a strict score differs, a submitter could tell it from the toolkit's score,
    its components and their own answer, except where `strict_tells_more` says so (and there they could not)."""
    seen_more = seen_derivable = 0
    for category, task_type, gt in cases():
        for index, rec in enumerate(records(category, task_type)):
            toolkit, strict = score_readings(rec, gt, index=index)
            alone_toolkit = score_sample(rec, gt, index=index, options=Options(compat=True))
            alone_strict = score_sample(rec, gt, index=index, options=Options(compat=False))
            assert toolkit == alone_toolkit and strict == alone_strict, (task_type, rec)
            if strict.score == toolkit.score:
                assert not strict_tells_more(toolkit, strict)
                continue
            derived = strict_as_the_submitter_can_tell(rec, toolkit)
            more = strict_tells_more(toolkit, strict)
            assert more == (derived is None), (task_type, rec, toolkit.components)
            if derived is not None:
                assert derived == pytest.approx(strict.score, abs=1e-12), (task_type, rec)
            seen_more += more
            seen_derivable += not more
    assert seen_more and seen_derivable  # both kinds occur among the cases


def test_an_unparseable_answer_on_an_empty_ground_truth_is_1_by_the_toolkit_and_0_strict():
    """"EPIC's default mode (deviation B1) scores an unparseable answer on an empty-ground-truth sample 0 where the
    toolkit ... gives 1.0"."""
    gd = next(s for s in demo.make_split(5, per_leaf=1) if s.leaf.name == "GroundDetection")
    gt = copy.deepcopy(gd.gt)
    gt["mask_annotation"]["masklet_ground"] = []
    toolkit, strict = score_readings(record("Navigation", "GroundDetection", loc=UNPARSEABLE), gt)
    assert (toolkit.score, toolkit.invalid) == (1.0, False) and (strict.score, strict.invalid) == (0.0, True)
