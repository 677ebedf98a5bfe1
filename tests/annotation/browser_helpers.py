"""Helpers for driving the annotation editor in Chromium."""
from __future__ import annotations


def to_client(page, x: float, y: float) -> tuple[float, float]:
    """Image pixel -> page coordinates, through the editor's current zoom and pan."""
    return tuple(page.evaluate(
        """([x, y]) => { const v = window.annotationEditor.state.view;
            const r = document.getElementById('canvas').getBoundingClientRect();
            return [r.left + v.tx + x * v.s, r.top + v.ty + y * v.s]; }""", [x, y]))


def instance_areas(page, masklet: str = "masklet_target") -> list[int]:
    """The pixel areas of the editor's instances on one layer."""
    return page.evaluate("(m) => (window.annotationEditor.state.instances[m] || []).map(i => i.area)", masklet)
