"""A player's own choices (issue 32): whether the replays of their episodes show their name to everyone."""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from simulator.engines import EpisodeError
from simulator.models import PlayerChoice


def player_replay_name_set(*, user: AbstractBaseUser | None, shown: bool) -> PlayerChoice:
    """Record whether this player's name is shown on the replays of their human episodes to everyone."""
    if user is None or not user.is_authenticated:
        raise EpisodeError("Sign in to choose how your replays show you.", status=401)
    choice, _ = PlayerChoice.objects.update_or_create(user_id=user.pk, defaults={"name_on_replays": bool(shown)})
    return choice
