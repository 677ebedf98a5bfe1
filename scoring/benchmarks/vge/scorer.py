"""VGEBench scorer: replays an uploaded `vge-log/1` file through the simulator engine.

Each sample of the split is one task (`ground_truth = {"task": <vge-task/1>, "device": <id>}`). The file
must hold exactly one episode per task: unknown or duplicate tasks reject the file with per-line problems;
a missing task is a failed episode with zero turns. Overall = SR; the breakdown holds the twelve metrics.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.episode_options import (
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
    PERTURBATION_OPTION,
    episode_history,
    episode_instruction,
    history_text,
)
from scoring.benchmarks.vge.core.metrics import METRICS, bootstrap_intervals, summarise
from scoring.benchmarks.vge.core.replay import Library, LogEpisode, parse_log, replay, trace
from scoring.benchmarks.vge.core.task_defs import LAMBDA_OPTION, TaskInvalid, episode_lambda, load_task
from scoring.core.contract import (
    FileProblem,
    PrecheckReport,
    SampleResult,
    ScorerInput,
    ScoringResult,
    SubmissionRejected,
)
from scoring.core.stats import DEFAULT_SEED, resample_indices

VERSION = "vge-1.0"
DeviceLoader = Callable[[Iterable[str]], Mapping[str, Mapping[str, Any]]]


_site_devices: list[DeviceLoader] = []


def device_source_set(loader: DeviceLoader) -> None:
    """Where the site's device definitions come from (the simulator app sets its table at start-up), so scoring
    never imports the app that plays devices."""
    _site_devices[:] = [loader]


def site_device_loader() -> DeviceLoader | None:
    """The site's device source, when the simulator app has set one."""
    return _site_devices[0] if _site_devices else None


def read_log(inp: ScorerInput, known_tasks: Mapping[str, Any]) -> list[LogEpisode]:
    """The file's episodes as the scorer reads them: streamed, at most the split's line bound, one episode per task
    of the split; `SubmissionRejected` with every line's problem otherwise."""
    with inp.file_path.open("rb") as handle:
        episodes, problems = parse_log(handle, known_tasks, allow_duplicates=False, samples=len(inp.samples))
    if problems:
        raise SubmissionRejected(
            f"The log has {len(problems)} problem(s) (first: {problems[0]}); nothing was scored.",
            (FileProblem(p.message, line=p.line, field=p.field) for p in problems),
        )
    if not episodes:
        raise SubmissionRejected("The log holds no episodes (one JSON line per task: {\"task\", \"outputs\"}).")
    return episodes


def precheck(inp: ScorerInput) -> PrecheckReport:
    """What the scorer would refuse, without replaying anything: the file read as `score` reads it, against the
    split's task ids (a VGE sample's key is its task's id; the pre-check gets no ground truth), and which tasks no
    episode plays."""
    episodes = read_log(inp, dict.fromkeys(sample.key for sample in inp.samples))
    return PrecheckReport.of((), file_format="vge-log/1 JSON Lines", records=len(episodes),
                             matched_keys=[e.task for e in episodes], samples=inp.samples)


def played_lambda(options: Mapping[str, Any]) -> int | None:
    """The interaction budget λ the log's episodes were played with (the option `lambda`, which a bundle of episodes
    played at another λ records), or None: each task's own."""
    if options.get(LAMBDA_OPTION) in (None, ""):
        return None
    try:
        return episode_lambda(options[LAMBDA_OPTION])
    except ValueError as exc:
        raise SubmissionRejected(f"option '{LAMBDA_OPTION}': {exc}") from None


def played_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The episode options besides λ the log's episodes were played with, as each episode's details record them:
    `perturbation` ("" for none), `history` ("full" or the past turns shown), `instruction` ("original" or
    "rephrased"). They change what the agent saw, not the replay. A bundle of agent API episodes sets them."""
    try:
        history = history_text(episode_history(options.get(HISTORY_OPTION)))
        instruction = episode_instruction(options.get(INSTRUCTION_OPTION))
    except ValueError as exc:
        raise SubmissionRejected(f"option {exc}") from None
    return {PERTURBATION_OPTION: str(options.get(PERTURBATION_OPTION) or ""), HISTORY_OPTION: history,
            INSTRUCTION_OPTION: instruction}


def provenance_options(options: Mapping[str, Any], model: str = "") -> dict[str, Any]:
    """The protocol options a VGE score states in its provenance: the interaction budget λ the episodes were played
    with (`interaction_budget`; "each task's own" unless the upload set one), the perturbation, history and instruction options, and the feedback the agent
    was given (the engine's texts, docs/formats/vge.md: no option changes them). Pure."""
    lam = played_lambda(options)
    # Named in words: a page of a hidden split never spells a task definition's field names (its λ is one).
    return {"interaction_budget": "each task's own" if lam is None else lam, **played_options(options),
            "feedback": f"engine ({VERSION})"}


def score(inp: ScorerInput, *, device_loader: DeviceLoader | None = None) -> ScoringResult:
    if device_loader is None and not _site_devices:
        raise RuntimeError("no device source: the simulator app registers one at start-up (is it installed?)")
    loader = device_loader or _site_devices[0]
    samples = list(inp.samples)
    # A broken split is a site error, not the file's. Its text reaches the submitter, so it names the sample or
    # device only: what is wrong quotes goals and states (hidden ground truth) and stays in the chained cause,
    # which the worker's log keeps.
    tasks = {}
    for sample in samples:
        try:
            tasks[sample.key] = load_task(sample.ground_truth["task"])
        except (KeyError, TaskInvalid) as exc:
            raise RuntimeError(f"sample {sample.key} of the split has a broken VGE task definition") from exc
    definitions = loader({t.device for t in tasks.values()})
    library = Library()
    for device_id in sorted({t.device for t in tasks.values()}):
        if device_id not in definitions:
            raise RuntimeError(f"device '{device_id}' of the split is not in the database")
        try:
            library.add_device(load_device(definitions[device_id], source=device_id))
        except DeviceInvalid as exc:
            raise RuntimeError(f"device '{device_id}' of the split has a broken definition") from exc
    for key, task in tasks.items():
        try:
            library.add_task(task)
        except TaskInvalid as exc:
            raise RuntimeError(f"sample {key} of the split has a task its device cannot play") from exc

    by_task = {e.task: e for e in read_log(inp, library.tasks)}
    lam = played_lambda(inp.options)
    played = played_options(inp.options)

    results: list[SampleResult] = []
    metrics = []
    for index, sample in enumerate(samples):
        task = tasks[sample.key]
        episode = by_task.get(task.id)
        result = replay(library.engine_for(task.id), task, episode.outputs if episode else (), lam=lam)
        m = result.metrics
        metrics.append(m)
        outcome = "missing" if episode is None else ("success" if m.success else "failed")
        results.append(
            SampleResult(
                index=index,
                key=sample.key,
                score=m.values["SR"],
                task=sample.task or sample.category,
                outcome=outcome,
                error="no episode for this task in the file" if episode is None else "",
                components={**m.values, "goals_reached": m.goals_reached, "turns": m.turns},
                details={
                    "task": task.as_dict(),
                    "line": episode.line if episode else None,
                    "l_opt": m.l_opt,
                    "lambda": task.lam if lam is None else lam,  # the λ the episode was played and replayed with
                    **played,  # the other options it was played with
                    "final": result.final.as_dict(),
                    "trace": trace(result),
                    "ignored_outputs": max(0, len(episode.outputs) - m.turns) if episode else 0,
                },
            )
        )
        if index % 50 == 0:
            inp.progress(index, len(samples))
    inp.progress(len(samples), len(samples))
    breakdown = summarise(metrics)
    intervals = bootstrap_intervals(metrics, resample_indices=resample_indices, seed=DEFAULT_SEED)
    return ScoringResult(
        overall=breakdown["SR"],
        breakdown={name: breakdown[name] for name in METRICS},
        samples=results,
        scorer_version=VERSION,
        intervals=intervals,
        details={"episodes": len(metrics), "missing_tasks": sum(1 for r in results if r.outcome == "missing")},
    )

