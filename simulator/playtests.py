"""Play-test devices: a device lab draft installed as a device of its own (`lab-draft-<id>`, source "playtest") so
its author can play it before it is submitted. It is in no split and never scored, and only those the device lab
names may reach it (its draft's author, reviewers and curators): every start, episode page, replay and list asks
here. The rule is the device lab's (it sits above the simulator); it hands it in at start-up
(`DevicelabConfig.ready`). Until it has, nobody may reach a play-test device.
"""
from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

PLAYTEST_SOURCE = "playtest"

User = AbstractBaseUser | AnonymousUser | None
# The play-test devices `user` may reach: their device ids, or None for every one (reviewers, curators).
PlaytestRule = Callable[[User], "frozenset[str] | None"]


def _nobody(user: User) -> frozenset[str] | None:
    return frozenset()


_rule: PlaytestRule = _nobody


def playtest_rule_set(rule: PlaytestRule) -> None:
    global _rule
    _rule = rule


def playtest_devices_for(user: User) -> frozenset[str] | None:
    if user is None or not user.is_authenticated:
        return frozenset()
    return _rule(user)


def device_reachable_by(*, device_id: str, source: str, user: User) -> bool:
    """Whether `user` may play, list or replay anything of this device (every device but a play-test one: yes)."""
    if source != PLAYTEST_SOURCE:
        return True
    allowed = playtest_devices_for(user)
    return allowed is None or device_id in allowed


def hidden_playtests_q(user: User, *, to_device: str = "") -> Q:
    """A filter keeping the rows whose device `user` may reach (`to_device`: the path to the device, e.g. "device__")."""
    allowed = playtest_devices_for(user)
    if allowed is None:
        return Q()
    return ~Q(**{f"{to_device}source": PLAYTEST_SOURCE}) | Q(**{f"{to_device}device_id__in": sorted(allowed)})
