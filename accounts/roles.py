"""The site's roles, decided in one place: the annotator, reviewer and curator groups (made by
scoring/migrations/0002_benchmarks_and_roles.py). Staff count as curators and curators as reviewers; a superuser
counts through `is_staff` only (createsuperuser makes one), and an anonymous user has no role.
"""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

ANNOTATOR = "annotator"
REVIEWER = "reviewer"
CURATOR = "curator"


def is_curator(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    return bool(user and user.is_authenticated and (user.is_staff or user.groups.filter(name=CURATOR).exists()))


def is_reviewer(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    return bool(user and user.is_authenticated and (is_curator(user) or user.groups.filter(name=REVIEWER).exists()))


def is_annotator(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    return bool(user and user.is_authenticated and user.groups.filter(name=ANNOTATOR).exists())


def role_names(user: AbstractBaseUser | AnonymousUser | None) -> frozenset[str]:
    """The signed-in user's group names, with "curator" added for staff (what the navigation shows)."""
    if user is None or not user.is_authenticated:
        return frozenset()
    names = set(user.groups.values_list("name", flat=True))
    if user.is_staff:
        names.add(CURATOR)
    return frozenset(names)


def curators_q() -> Q:
    """The users `is_curator` accepts, as a filter on the user model."""
    return Q(is_staff=True) | Q(groups__name=CURATOR)


def annotators_q() -> Q:
    """The users `is_annotator` accepts, as a filter on the user model."""
    return Q(groups__name=ANNOTATOR)
