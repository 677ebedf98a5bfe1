"""Reads for VGE: device definitions for the scorer, episode traces, task lists."""
from __future__ import annotations

from typing import Any, Iterable

from simulator.models import Device, Episode, Task


def device_definitions(*, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    return dict(Device.objects.filter(device_id__in=list(ids)).values_list("device_id", "definition"))


def episode_trace(*, episode: Episode) -> list[dict[str, Any]]:
    """The stored outcomes, in turn order (what the agent saw and what the engine did)."""
    return list(episode.steps.order_by("index").values_list("outcome", flat=True))


def task_list(*, split_name: str | None = None) -> list[Task]:
    qs = Task.objects.select_related("device")
    if split_name:
        qs = qs.filter(sample__split__name=split_name)
    return list(qs.order_by("task_id"))
