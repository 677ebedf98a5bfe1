"""Reads for VGEBench's Analysis tab: what its figures need besides the board's episodes."""
from __future__ import annotations

from typing import Any

from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_FULL,
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
)
from scoring.benchmarks.vge.core.graphs import DeviceGraphs
from scoring.benchmarks.vge.core.task_defs import LAMBDA_OPTION
from scoring.benchmarks.vge.scorer import site_device_loader
from scoring.models import ModelEntry, SampleScore, Split, Submission
from scoring.selectors import on_boards


def device_graphs(split: Split) -> dict[str, DeviceGraphs]:
    """For each device of the split, its graphs (which components each view shows, the optimal plans the error
    taxonomy and the view switches judge turns against). Devices the source cannot give or that do not load are
    left out (their episodes are then not classed)."""
    loader = site_device_loader()
    if loader is None:
        return {}
    ids = {d for d in split.samples.values_list("ground_truth__device", flat=True) if isinstance(d, str)}
    graphs: dict[str, DeviceGraphs] = {}
    for device_id, definition in loader(ids).items():
        try:
            graphs[device_id] = DeviceGraphs(load_device(definition, source=device_id))
        except DeviceInvalid:
            continue
    return graphs


def run_submissions(split: Split) -> list[dict[str, Any]]:
    """Every public scored upload of the split with its model and the options its episodes were played with
    (`perturbation`, "" for none; `lambda_option`, None when each task's own; `history`, "full" or a number of
    turns; `instruction`, "original" or "rephrased"), in id order: the figures that compare a model's submissions
    with each other (robustness, budget, history, instruction) count each one's episodes per λ from its summary
    (core.analysis.runs_from_summaries), keeping those of the board's filtered rows. One query of values, no
    per-sample row."""
    subs = (on_boards(Submission.objects.filter(split=split, status=Submission.Status.SCORED,
                                                source=Submission.Source.UPLOAD))
            .order_by("id").values_list("pk", "model_entry__name", "model_entry__thinking", "model_entry__kind",
                                        "options"))
    out = []
    # Values, not model instances: a page reads every upload of the split (2,000 at 100x: 230 ms as instances with
    # their entries, 25 ms as values).
    for pk, model, thinking, kind, options in subs:
        options = options if isinstance(options, dict) else {}
        out.append({"submission": pk, "model": model, "thinking": thinking,
                    "kind": kind, "perturbation": str(options.get("perturbation") or ""),
                    "lambda_option": options.get(LAMBDA_OPTION),
                    "history": str(options.get(HISTORY_OPTION) or HISTORY_FULL),
                    "instruction": str(options.get(INSTRUCTION_OPTION) or DEFAULT_INSTRUCTION)})
    return out


def vge_analysis_context(split: Split) -> dict[str, Any]:
    """What the figures combined per request read besides the summaries: the run submissions (the device graphs
    are read when the summaries are made: `vge_analysis_summary_context`)."""
    return {"run_submissions": run_submissions(split)}


def _human_submission_ids(split: Split) -> list[int]:
    """The scored submissions of human entries on the split's board, in id order. The human entries are read first
    (a few rows): joined in one query, PostgreSQL scanned every model entry once per submission of the split (it
    expects one submission), which grows as the square of the hub."""
    humans = list(ModelEntry.objects.filter(kind=ModelEntry.Kind.HUMAN).values_list("pk", flat=True))
    if not humans:
        return []
    subs = on_boards(Submission.objects.filter(split=split, status=Submission.Status.SCORED, model_entry_id__in=humans))
    return list(subs.order_by("pk").values_list("pk", flat=True))


def vge_analysis_summary_context(split: Split, public: bool) -> dict[str, Any]:
    """What a submission's summary reads besides its episodes: the devices' graphs (not on a split with hidden
    ground truth: they judge turns against the optimal plan) and the tasks the split's human entries on the board
    played (human vs model)."""
    # order_by(): a set is taken; the default ordering (the submission's date) would join each row to its submission
    keys = (SampleScore.objects.filter(submission_id__in=_human_submission_ids(split)).order_by()
            .values_list("key", flat=True))
    return {"graphs": device_graphs(split) if public else {}, "human_keys": sorted(set(keys))}


def vge_analysis_summary_stamp(split: Split) -> str:
    """The human entries on the split's board (their tasks are in every summary): two short reads."""
    return "humans:" + ",".join(str(pk) for pk in _human_submission_ids(split))
