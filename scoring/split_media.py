"""Where a split's images are stored and served: public splits' under MEDIA_ROOT/public (served to anyone, as
static files), hidden splits' under MEDIA_ROOT/hidden/<benchmark>/<split name>/ (served by
`scoring.views.media_file` only to those `scoring.access.split_images_visible_to` allows).

A path is keyed by the split's name, not its version, so every version of a split (annotation publishing makes a
new one for a correction) shares its images and the rule is asked of the split's live `hidden_ground_truth` flag.
"""
from __future__ import annotations

import re

from django.conf import settings

PUBLIC_DIR = "public"
HIDDEN_DIR = "hidden"
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def split_media_folder(*, benchmark_slug: str, split_name: str, hidden: bool) -> str:
    """The folder, relative to MEDIA_ROOT, that a split's images are copied into. Names must be slugs (they are
    path segments of the file and of its URL)."""
    for what, value in (("benchmark", benchmark_slug), ("split name", split_name)):
        if not SLUG.fullmatch(value or ""):
            raise ValueError(f"The {what} {value!r} is not a slug (letters, digits, '-' and '_').")
    if hidden:
        return f"{HIDDEN_DIR}/{benchmark_slug}/{split_name}"
    return f"{PUBLIC_DIR}/{benchmark_slug}"


def media_url(relative: str) -> str:
    """The URL of a file named relative to MEDIA_ROOT (public or hidden: both are routed under MEDIA_URL)."""
    return settings.MEDIA_URL + relative.lstrip("/")


def public_relative_url(name: str) -> str:
    """The URL of an image name as PLAN stores it: relative to MEDIA_ROOT/public, or (a hidden split's)
    relative to MEDIA_ROOT starting with `hidden/`."""
    name = name.lstrip("/")
    return media_url(name if name.startswith(HIDDEN_DIR + "/") else f"{PUBLIC_DIR}/{name}")
