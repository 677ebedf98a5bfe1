"""Evaluation runs: start (check, then store and enqueue), pause, resume, cancel. Who may start one: a curator for
any endpoint and any split; a signed-in user for their own endpoint within the split's daily upload quota (a run
counts as one upload per repeat, checked when it starts) and within the runs a user may start per phase
(EVALUATIONS_RUNS_PER_PHASE, counted under a lock on the user's row so two starts at once cannot both pass)."""
from __future__ import annotations

from typing import Any, Mapping

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.roles import is_curator
from evaluations.endpoints import endpoint_check
from evaluations.execution import repeat_texts
from evaluations.models import EvaluationRun
from evaluations.secrets import seal
from evaluations.tasks import run_enqueue
from scoring import services as scoring_services
from scoring.benchmarks import plugin_for
from scoring.core.runner import RunError
from scoring.errors import ServiceRefusal
from scoring.models import Split
from scoring.quota import submission_quota

MAX_K = 8
MAX_CONCURRENCY = 64


def run_create_check(*, user: AbstractBaseUser, split: Split, model_name: str, entry_name: str, base_url: str,
                     options: Mapping[str, Any], k: int, concurrency: int) -> tuple[str, dict[str, Any]]:
    """(the endpoint URL, the protocol's options checked); ServiceRefusal naming the field otherwise."""
    if not user.is_authenticated:
        raise ServiceRefusal("Sign in to run a model.", status=401)
    protocol = plugin_for(split.benchmark.scorer).runner_protocol()
    if protocol is None:
        raise ServiceRefusal(f"The hub cannot run models on {split.benchmark.name}.", field="split")
    if not split.samples.exists():
        raise ServiceRefusal(f"{split} has no samples to run.", field="split")
    if not model_name.strip():
        raise ServiceRefusal("Name the model the endpoint serves.", field="model_name")
    if not 1 <= k <= MAX_K:
        raise ServiceRefusal(f"k must be from 1 to {MAX_K}.", field="k")
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ServiceRefusal(f"concurrency must be from 1 to {MAX_CONCURRENCY}.", field="concurrency")
    url = endpoint_check(base_url)
    try:
        checked = protocol.check_options(options, model=model_name)
    except RunError as exc:
        raise ServiceRefusal(str(exc), field="options") from None
    entry = scoring_services.model_entry_for_upload(user=user, name=entry_name or model_name)
    del entry  # its name is checked (another's entry, a paper's row) now, it is made when the run is submitted
    if not is_curator(user):
        quota = submission_quota(user=user, split=split)
        if quota.limit is not None and (quota.remaining or 0) < k:
            raise ServiceRefusal(f"Daily quota for {split}: {quota.remaining} of {quota.limit} submissions left "
                                 f"today, and this run submits {k}.", status=429, field="k")
    return url, checked


def run_quota_check(*, user: AbstractBaseUser, split: Split) -> None:
    """A user's runs per phase (per split for a split in no phase), whatever became of them: ServiceRefusal naming
    the split when this one would be one too many. Curators are not held to it."""
    limit = settings.EVALUATIONS_RUNS_PER_PHASE
    runs = EvaluationRun.objects.filter(owner_id=user.pk)
    runs = runs.filter(split__phase_id=split.phase_id) if split.phase_id else runs.filter(split=split)
    used = runs.count()
    if used >= limit:
        where = f"the phase {split.phase.name}" if split.phase_id else str(split)
        raise ServiceRefusal(f"Run quota for {where}: you have started {used} of the {limit} runs a user may start "
                             f"there; ask a curator to run more.", status=429, field="split")


def run_create(*, user: AbstractBaseUser, split: Split, model_name: str, base_url: str, api_key: str = "",
               entry_name: str = "", options: Mapping[str, Any] | None = None, k: int = 1, seed: int = 0,
               temperature: float = 0.0, max_tokens: int | None = None, concurrency: int = 4,
               rate_per_minute: int | None = None) -> EvaluationRun:
    url, checked = run_create_check(user=user, split=split, model_name=model_name, entry_name=entry_name,
                                    base_url=base_url, options=options or {}, k=k, concurrency=concurrency)
    with transaction.atomic():
        if not is_curator(user):
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one start at a time per user
            run_quota_check(user=user, split=split)
        run = EvaluationRun.objects.create(
            owner=user, split=split, model_name=model_name.strip(), entry_name=(entry_name or model_name).strip(),
            base_url=url, api_key_sealed=seal(api_key), options=checked, k=k, seed=seed, temperature=temperature,
            max_tokens=max_tokens or None, concurrency=concurrency, rate_per_minute=rate_per_minute or None,
            units_total=split.samples.count() * k)
        transaction.on_commit(lambda: run_enqueue(run_id=run.pk))
    return run


def _own_check(user: AbstractBaseUser, run: EvaluationRun) -> None:
    if run.owner_id != user.pk and not is_curator(user):
        raise ServiceRefusal("This run is someone else's.", status=404)


def run_pause(*, user: AbstractBaseUser, run: EvaluationRun) -> None:
    _own_check(user, run)
    if not EvaluationRun.objects.filter(pk=run.pk, status__in=(EvaluationRun.Status.QUEUED,
                                                                 EvaluationRun.Status.RUNNING)).update(
            status=EvaluationRun.Status.PAUSED):
        raise ServiceRefusal(f"A {run.get_status_display().lower()} run cannot be paused.", status=409)


def run_resume(*, user: AbstractBaseUser, run: EvaluationRun) -> None:
    _own_check(user, run)
    if not EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.PAUSED).update(
            status=EvaluationRun.Status.QUEUED, error_message=""):
        raise ServiceRefusal("Only a paused run can be resumed.", status=409)
    transaction.on_commit(lambda: run_enqueue(run_id=run.pk))


def run_cancel(*, user: AbstractBaseUser, run: EvaluationRun) -> None:
    """End the run: its stored answers and the lines of its finished units stay (the partial file); the key goes."""
    _own_check(user, run)
    with transaction.atomic():
        locked = EvaluationRun.objects.select_for_update().get(pk=run.pk)
        if locked.status not in (EvaluationRun.Status.QUEUED, EvaluationRun.Status.RUNNING,
                                 EvaluationRun.Status.PAUSED):
            raise ServiceRefusal(f"A {locked.get_status_display().lower()} run cannot be cancelled.", status=409)
        locked.status = EvaluationRun.Status.CANCELLED
        locked.api_key_sealed = ""
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "api_key_sealed", "finished_at"])
    # The lines stored when the cancel landed; a unit still in flight may add its line after this.
    locked.partial_file = "".join(repeat_texts(locked))
    locked.save(update_fields=["partial_file"])
