"""The PNG an episode shows: a device's own view image or a cached render, perturbed when the episode says so."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser

from scoring.benchmarks.vge.core import perturb
from scoring.benchmarks.vge.core.device import Device as CoreDevice
from scoring.benchmarks.vge.core.engine import EpisodeState
from scoring.benchmarks.vge.core.render import view_image
from simulator.engines import EpisodeError, core_task, engine_for, episode_owner_check, episode_reach_check
from simulator.models import Device, Episode


def episode_view_png(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None = None) -> Path | bytes:
    """What the agent API serves: the view's file, or, for an episode with a perturbation, the perturbed PNG
    (deterministic per episode and turn; a post-processing step on the renderer's image)."""
    path, episode, shown_turn = _episode_view(episode_id=episode_id, user=user, turn=turn)
    found = perturb.parse(episode.perturbation) if episode.perturbation else None
    if found is None:
        return path
    return perturb.apply_png(path.read_bytes(), found, key=f"{episode.pk}:{shown_turn}")


def _episode_view(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None) -> tuple[Path, Episode, int]:
    episode = Episode.objects.select_related("task__device").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    episode_reach_check(episode, user)
    episode_owner_check(episode, user)
    state = EpisodeState.from_dict(episode.state)
    name, view = state.state, state.view
    if turn is not None and turn != state.turns:
        if turn == 0:
            core = core_task(episode.task)
            name, view = engine_for(episode.task.device).graphs.chain[core.start_state][0], core.start_view
        else:
            step = episode.steps.filter(index=turn).values_list("outcome", flat=True).first()
            if step is None:
                raise EpisodeError(f"The episode has no turn {turn}.", status=404)
            name, view = step["state_after"], step["view_after"]
    shown = state.turns if turn is None else turn
    return device_view_image(device_row=episode.task.device, view=view, state=name), episode, shown


def render_cache_dir() -> Path:
    return Path(getattr(settings, "VGE_RENDER_CACHE", Path(settings.MEDIA_ROOT) / "vge-renders"))


def device_view_image(*, device_row: Device, view: str, state: str) -> Path:
    """The PNG of one view of a stored device in one state (the renderer's `view_image` decides: the state's photo,
    the view's photo with the state's overlays, the view's photo, or a cached render)."""
    device: CoreDevice = engine_for(device_row).device
    if view not in device.views or state not in device.states:
        raise EpisodeError(f"Device {device_row.device_id} has no view '{view}' or state '{state}'.", status=404)
    folder = Path(settings.MEDIA_ROOT) / device_row.images_dir if device_row.images_dir else None
    return view_image(device, view, state, photo_path=lambda name: folder / Path(name).name if folder else None,
                      cache_dir=render_cache_dir())
