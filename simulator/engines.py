"""The VGE engines of this process (one per device definition) and what every episode path shares with them:
a stored task loaded into its engine, the owner check, and what a player or agent is shown.

Below `simulator.services` and `simulator.selectors`, which both use it; it imports neither.
"""
from __future__ import annotations

import threading
from typing import Any, Protocol

from django.contrib.auth.models import AbstractBaseUser

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine, EpisodeState
from scoring.benchmarks.vge.core.play import budget_maxima
from scoring.benchmarks.vge.core.rephrase import instruction_shown
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from scoring.benchmarks.vge.core.task_defs import load_task
from scoring.errors import ServiceRefusal
from simulator.models import Device, Episode, Task
from simulator.playtests import device_reachable_by


class EpisodeError(ServiceRefusal):
    """A request about an episode that cannot be served (the play socket and the replay list catch these)."""


_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def engine_for(device: Device) -> Engine:
    """The process-wide engine of a stored device (graphs built once per definition digest)."""
    engine = _engines.get(device.digest)
    if engine is None:
        with _engines_lock:
            engine = _engines.get(device.digest)
            if engine is None:
                engine = Engine(load_device(device.definition, source=device.device_id))
                _engines[device.digest] = engine
    return engine


def engine_cached(digest: str) -> Engine | None:
    """The engine already built for a device digest in this process, if any."""
    return _engines.get(digest)


def engine_cache_clear() -> None:
    """Forget every engine (as after a restart: the next request rebuilds from the database)."""
    with _engines_lock:
        _engines.clear()


def core_task(task: Task) -> CoreTask:
    return load_task(task.definition)


def engine_with_task(task: Task) -> tuple[Engine, CoreTask]:
    """The engine of the task's device, with the task added to it (once per process: later calls take the task
    from the engine and never read the row's definition)."""
    engine = engine_for(task.device)
    if engine.has_task(task.task_id):
        return engine, engine.task(task.task_id)
    core = core_task(task)
    if not engine.has_task(core.id):
        engine.add_task(core)
    return engine, core


def device_reach_check(*, device_id: str, source: str, user: AbstractBaseUser | None, what: str) -> None:
    """A play-test device's episodes and tasks are as if none to those the device lab keeps off it
    (simulator.playtests): `what` is the refusal's "Unknown ..." subject."""
    if not device_reachable_by(device_id=device_id, source=source, user=user):
        raise EpisodeError(f"Unknown {what}.", status=404)


def episode_reach_check(episode: Episode, user: AbstractBaseUser | None) -> None:
    device = episode.task.device
    device_reach_check(device_id=device.device_id, source=device.source, user=user, what=f"episode {episode.pk}")


def episode_owner_check(episode: Episode, user: AbstractBaseUser | None) -> None:
    """Refuse anyone but the episode's owner (and staff); an episode without an owner is anyone's."""
    owner_check(episode.owner_id, user)


def owner_check(owner_id: int | None, user: AbstractBaseUser | None) -> None:
    """`episode_owner_check` given the episode's owner id."""
    if owner_id is not None and (user is None or (owner_id != user.pk and not user.is_staff)):
        raise EpisodeError("This episode belongs to someone else.", status=403)


# The session key of the practice episodes an anonymous visitor started in this browser (their ids): a visitor
# without an account plays only those (issue 32: anonymous visitors practise; only scored episodes need an account).
GUEST_EPISODES_KEY = "vge_guest_episodes"


def guest_episode_ids(session: Any) -> list[int]:
    """The practice episodes this browser's session started without an account."""
    if session is None:
        return []
    return [int(pk) for pk in session.get(GUEST_EPISODES_KEY, []) if isinstance(pk, int)]


def episode_player_check(episode: Episode, user: AbstractBaseUser | None, guest_episodes: list[int]) -> None:
    """Who may play an episode in the browser: its owner; or, without an account, the browser that started this
    ownerless (practice) episode. A play-test device's episode: only while its owner may still reach the device."""
    episode_reach_check(episode, user)
    if user is not None and user.is_authenticated:
        episode_owner_check(episode, user)
        if episode.owner_id != user.pk:  # staff too: they watch replays, they do not play others' episodes
            raise EpisodeError("This episode belongs to someone else; you can only watch its replay.", status=403)
        return
    if episode.owner_id is None and episode.pk in guest_episodes:
        return
    raise EpisodeError("Sign in to play.", status=401)


class ShownEpisode(Protocol):
    """What an observation reads of its episode: an Episode, or a step's stand-in for one (no model instance)."""

    @property
    def pk(self) -> Any: ...

    @property
    def instruction(self) -> str: ...


def observation(*, episode: ShownEpisode, engine: Engine, state: EpisodeState) -> dict[str, Any]:
    """What a player or agent sees now. Never names states or components."""
    core = engine.task(state.task)
    return {
        "episode": episode.pk,
        "turn": state.turns,
        "view": state.view,
        "image_url": f"/api/vge/episodes/{episode.pk}/view.png?turn={state.turns}",
        "accessible_views": engine.accessible_views(state),
        # in the episode's instruction style: the task's words, or the second style (core/rephrase.py)
        "instruction": instruction_shown(task_id=state.task, index=state.goal_index, text=engine.instruction(state),
                                         style=episode.instruction),
        "goal_index": state.goal_index,
        "goals_total": len(core.goals),
        "budgets": {"global": state.global_left, "local": state.local_left},
        "budgets_max": budget_maxima({"turns": state.turns, "global_left": state.global_left,
                                      "local_left": state.local_left, "goal_since": state.goal_since}),
        "done": state.done,
        "success": state.success,
    }
