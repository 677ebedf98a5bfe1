"""Bundles of a user's finished agent episodes: a vge-log/1 file, submitted to a split."""
from __future__ import annotations

import json
from typing import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
    PERTURBATION_OPTION,
)
from scoring.benchmarks.vge.core.task_defs import LAMBDA_OPTION
from scoring.models import ModelEntry, Sample, Split, Submission
from scoring.services import submission_create
from simulator.engines import EpisodeError
from simulator.models import Episode
from simulator.services.episodes import episode_history_check, episode_instruction_check, episode_lambda_check


def episodes_log_text(*, episodes: Iterable[Episode]) -> str:
    """A vge-log/1 file of episodes: one line each, the raw outputs in turn order."""
    lines = []
    for episode in episodes:
        outputs = list(episode.steps.order_by("index").values_list("raw_output", flat=True))
        lines.append(json.dumps({"task": episode.task.task_id, "outputs": outputs}))
    return "\n".join(lines) + "\n"


def episodes_submission_create(
    *, user: AbstractBaseUser, split: Split, model_entry: ModelEntry, note: str = "", perturbation: str = "",
    lam: int | None = None, history: object = None, instruction: object = None,
) -> Submission:
    """Bundle the user's finished agent episodes on the split's tasks played with one set of options (the latest per
    task) into a submission whose options record them, so the scorer replays and records each episode as it was
    played: `perturbation` ("" for none), the interaction budget `lam` (None: episodes played with their task's
    own λ, and no option; a whole number: episodes played with that λ, whether asked for or their task's own,
    replayed with it), `history` (None or "full": all past turns shown) and `instruction` ("original" or None,
    "rephrased"). An option at its default is left out of the submission's options."""
    lam = episode_lambda_check(lam)
    history, instruction = episode_history_check(history), episode_instruction_check(instruction)
    keys = set(Sample.objects.filter(split=split).values_list("key", flat=True))
    latest: dict[str, Episode] = {}
    for episode in (
        Episode.objects.filter(owner=user, kind=Episode.Kind.AGENT, finished=True, task__task_id__in=keys,
                               perturbation=perturbation, history=history, instruction=instruction)
        .select_related("task")
        .order_by("created_at", "pk")
    ):
        if episode.lam is None if lam is None else episode.played_lambda == lam:
            latest[episode.task.task_id] = episode
    played = options_text(perturbation=perturbation, lam=lam, history=history, instruction=instruction)
    if not latest:
        raise EpisodeError(f"You have no finished agent episodes {played} on the tasks of this split.", status=400)
    text = episodes_log_text(episodes=latest.values())
    upload = SimpleUploadedFile(f"vge-episodes-{split.name}.jsonl", text.encode(), content_type="application/jsonl")
    options: dict[str, object] = {}
    if perturbation:
        options[PERTURBATION_OPTION] = perturbation
    if lam is not None:
        options[LAMBDA_OPTION] = lam
    if history is not None:
        options[HISTORY_OPTION] = history
    if instruction != DEFAULT_INSTRUCTION:
        options[INSTRUCTION_OPTION] = instruction
    default_note = f"{len(latest)} agent episodes played through the API {played}"
    return submission_create(user=user, split=split, model_entry=model_entry, uploaded_file=upload,
                             note=note or default_note, options=options)


def options_text(*, perturbation: str, lam: int | None, history: int | None = None,
                 instruction: str = DEFAULT_INSTRUCTION) -> str:
    """How a bundle's episodes were played, in words: "with λ = 3, without a perturbation"."""
    words = ["with their task's own λ" if lam is None else f"with λ = {lam}",
             f"with perturbation {perturbation}" if perturbation else "without a perturbation"]
    if history is not None:
        words.append(f"with history {history}")
    if instruction != DEFAULT_INSTRUCTION:
        words.append(f"with {instruction} instructions")
    return ", ".join(words)
