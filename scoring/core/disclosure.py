"""What of a scored sample a viewer may see: an allow-list of key names, declared per benchmark on its plugin.

Rules: curators see everything; on a split with hidden ground truth others see only the plugin's
`hidden_split_detail_keys` (nothing for an unknown benchmark), and of a sample never submitted only its key,
position, task, outcome and score; on a public split, the plugin's `public_split_detail_keys` (None: all). Pure.
"""
from __future__ import annotations

from typing import Any, Mapping

from scoring.core.plugin import BenchmarkPlugin

# The outcome every scorer gives a sample the file has no line for.
NOT_SUBMITTED = "missing"


def detail_keys(plugin: BenchmarkPlugin | None, *, hidden: bool, curator: bool) -> frozenset[str] | None:
    """The key names this viewer may see in a sample's details and components; None: all of them."""
    if curator:
        return None
    if hidden:
        return plugin.hidden_split_detail_keys if plugin is not None else frozenset()
    return plugin.public_split_detail_keys if plugin is not None else None


def disclosed(value: Any, keys: frozenset[str] | None) -> Any:
    """`value` with only the allowed keys of every mapping in it, at any depth (lists are walked through)."""
    if keys is None:
        return value
    if isinstance(value, Mapping):
        return {k: disclosed(v, keys) for k, v in value.items() if k in keys}
    if isinstance(value, (list, tuple)):
        return [disclosed(v, keys) for v in value]
    return value


def sample_disclosed(details: Any, components: Any, *, outcome: str, keys: frozenset[str] | None,
                     hidden: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """(details, components) of one sample as this viewer may see them. On a hidden split a sample the file never
    answered shows neither: its scorer may have filled them from the ground truth alone."""
    if keys is not None and hidden and outcome == NOT_SUBMITTED:
        return {}, {}
    return disclosed(details or {}, keys), disclosed(components or {}, keys)
