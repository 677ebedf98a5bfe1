"""Who may see what of a split, a submission and their media: the hidden-split rules, decided here and only here.

A split with hidden ground truth keeps it from everyone but curators; its per-sample results are for the
submitter and curators; its images for reviewers, curators and whoever has an accepted submission on it; its tasks'
difficulty (optimal turns, goals) and any figure read from its ground truth for curators only. Every app asks these
functions (roles come from `accounts.roles`); a media file is judged on the folder its path resolved to
(`media_file_for`), never on the words of the URL.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from accounts.roles import is_curator, is_reviewer
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.disclosure import detail_keys
from scoring.core.plugin import BenchmarkPlugin
from scoring.models import Split, Submission
from scoring.phases import results_waiting
from scoring.split_media import HIDDEN_DIR, PUBLIC_DIR

User = AbstractBaseUser | AnonymousUser | None

# A submission opens a hidden split's images to its submitter once it was accepted for scoring: a failed one (a
# junk file) does not, nor a withdrawn one.
ACCEPTED_STATUSES = (Submission.Status.QUEUED, Submission.Status.RUNNING, Submission.Status.SCORED)


def _signed_in(user: User) -> bool:
    return bool(user is not None and user.is_authenticated)


def is_owner(*, submission: Submission, user: User) -> bool:
    return _signed_in(user) and submission.submitter_id == user.pk


# -- splits --------------------------------------------------------------------------------------------------------

def ground_truth_visible_to(*, split: Split, user: User) -> bool:
    """A split's ground truth (answers, masks, goal states, optimal costs, figures read from them): everyone on a
    public split, curators only on a hidden one."""
    return not split.hidden_ground_truth or is_curator(user)


def ground_truth_figures_public(*, split: Split | None) -> bool:
    """Whether figures read from a split's ground truth (label distributions, per-class counts) may be computed
    for a page anyone can read: never on a hidden split, not even as an aggregate."""
    return split is None or not split.hidden_ground_truth


def sample_detail_keys(*, split: Split | None, user: User,
                       plugin: BenchmarkPlugin | None = None) -> frozenset[str] | None:
    """The keys of a sample's details, components and metrics this viewer may see on `split` (None: all): curators
    see all; others what the benchmark's plugin (`plugin`, else the split's) allows (scoring.core.disclosure)."""
    if plugin is None and split is not None:
        try:
            plugin = plugin_for(split.benchmark.scorer)
        except UnknownBenchmark:
            plugin = None
    hidden = split is not None and split.hidden_ground_truth
    return detail_keys(plugin, hidden=hidden, curator=is_curator(user))


def accepted_submission_on(*, splits, user: User) -> bool:
    """Whether `user` has a submission accepted for scoring (queued, running or scored; not withdrawn) on one of
    `splits` (a queryset or list of splits)."""
    if not _signed_in(user):
        return False
    return (Submission.objects.filter(split__in=splits, submitter=user, status__in=ACCEPTED_STATUSES)
            .exclude(visibility=Submission.Visibility.WITHDRAWN).exists())


def split_images_visible_to(*, user: User, benchmark_slug: str, split_name: str) -> bool:
    """Whether `user` may see the images of the split (any version) `benchmark_slug`/`split_name`: anyone when
    its ground truth is public; on a hidden split, reviewers and curators (they judge and review its items) and
    whoever has an accepted submission on it (its drill-down overlays draw these images for them already)."""
    splits = Split.objects.filter(benchmark__slug=benchmark_slug, name=split_name)
    flags = set(splits.values_list("hidden_ground_truth", flat=True))
    if not flags:
        return False
    if False in flags or is_reviewer(user):
        return True
    return accepted_submission_on(splits=splits, user=user)


# -- submissions ---------------------------------------------------------------------------------------------------

def submission_own_page_visible_to(*, submission: Submission, user: User) -> bool:
    """A submission's own page, API record and visibility setting: its submitter and curators."""
    return is_owner(submission=submission, user=user) or is_curator(user)


def submission_public_to(*, submission: Submission, user: User) -> bool:
    """Whether a viewer may see a submission's results outside its own page: a public one anyone (the split's rules
    on ground truth still apply) unless its phase shows results only at its close and has not closed; a private or
    withdrawn one its submitter and curators only."""
    if submission.visibility == Submission.Visibility.PUBLIC and not results_waiting(submission):
        return True
    return is_owner(submission=submission, user=user) or is_curator(user)


def sample_results_visible_to(*, submission: Submission, user: User) -> bool:
    """Per-sample results (drill-down, overlay, export, replays): on a hidden split the submitter's and curators'
    only; elsewhere anyone who may see the submission."""
    if not submission_public_to(submission=submission, user=user):
        return False
    return (not submission.split.hidden_ground_truth or is_curator(user)
            or is_owner(submission=submission, user=user))


def episode_replay_visible_to(*, split: Split | None, owner_id: int | None, user: User) -> bool:
    """A finished simulator episode's replay (states and budgets): its player, curators, and anyone when its task
    belongs to a public split (a task of no split is not public)."""
    if _signed_in(user) and owner_id == user.pk:
        return True
    return is_curator(user) or (split is not None and not split.hidden_ground_truth)


# -- media files ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MediaFile:
    """A file under MEDIA_ROOT as its path resolved: the top folder it really lies in (`public` or `hidden`), its
    path relative to that folder, and for a hidden one the benchmark and split folder it lies in."""

    folder: Path
    relative: str
    benchmark: str = ""
    split: str = ""


def media_file_for(path: str) -> MediaFile | None:
    """The file `path` (relative to MEDIA_ROOT, as the URL names it) resolves to, or None when it resolves to
    nothing servable: no such file, outside MEDIA_ROOT/public or MEDIA_ROOT/hidden/<benchmark>/<split>/, or out
    of the folder the URL names through `..` or a symbolic link."""
    top, _, rest = path.partition("/")
    if top not in (PUBLIC_DIR, HIDDEN_DIR) or not rest or "\x00" in path:
        return None
    folder = Path(settings.MEDIA_ROOT, top).resolve()
    try:
        target = (folder / rest).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not target.is_file() or not target.is_relative_to(folder):
        return None
    parts = target.relative_to(folder).parts
    if top == PUBLIC_DIR:
        return MediaFile(folder=folder, relative="/".join(parts))
    if len(parts) < 3:
        return None
    return MediaFile(folder=folder, relative="/".join(parts), benchmark=parts[0], split=parts[1])


def media_file_visible_to(*, media: MediaFile, user: User) -> bool:
    """Public media to anyone; a hidden split's file as `split_images_visible_to` decides for the split folder the
    file really lies in."""
    if not media.benchmark:
        return True
    return split_images_visible_to(user=user, benchmark_slug=media.benchmark, split_name=media.split)
