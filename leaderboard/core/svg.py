"""Server-rendered SVG charts: grouped bars (categories of top models) and a scatter (score vs parameters).

Plain strings out, every label escaped, sizes fixed so the images work in exports and without JavaScript.
Inputs are plain numbers; None values are drawn as gaps, never as zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Sequence

PALETTE = ("#0b5cad", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93", "#57606a", "#8ab17d", "#b5838d")


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float
    group: str = ""


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * exponent:
            return step * exponent
    return 10 * exponent


def _header(width: int, height: int, title: str) -> list[str]:
    t = escape(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{t}" font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{t}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2:.0f}" y="20" text-anchor="middle" font-size="14" font-weight="600">{t}</text>',
    ]


def grouped_bars(
    categories: Sequence[str], series: Sequence[Series], *, title: str, y_label: str = "score", width: int = 760,
    height: int = 360, y_max: float | None = None,
) -> str:
    """Bars per category, one colour per series, with a legend."""
    left, right, top, bottom = 52, 16, 36, 78
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [v for s in series for v in s.values if v is not None and math.isfinite(v)]
    top_value = y_max if y_max is not None else _nice_max(max(values, default=1.0))
    out = _header(width, height, title)
    for i in range(6):
        v = top_value * i / 5
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#57606a">{v:g}</text>')
    out.append(
        f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" fill="#57606a">'
        f"{escape(y_label)}</text>"
    )
    n_cat = max(len(categories), 1)
    slot = plot_w / n_cat
    bar_w = max(2.0, (slot * 0.8) / max(len(series), 1))
    for ci, category in enumerate(categories):
        x0 = left + slot * ci + slot * 0.1
        for si, s in enumerate(series):
            v = s.values[ci] if ci < len(s.values) else None
            if v is None or not math.isfinite(v):
                continue
            h = plot_h * max(0.0, min(v, top_value)) / top_value
            x = x0 + bar_w * si
            out.append(
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[si % len(PALETTE)]}"><title>{escape(s.name)} · {escape(category)}: {v:.2f}</title></rect>'
            )
        out.append(
            f'<text x="{left + slot * ci + slot / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle">'
            f"{escape(category)}</text>"
        )
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#57606a"/>')
    # Legend, wrapped in rows under the axis.
    lx, ly = left, top + plot_h + 36
    for si, s in enumerate(series):
        label = escape(s.name[:40])
        w = 18 + 7 * len(s.name[:40]) + 14
        if lx + w > width - right:
            lx, ly = left, ly + 16
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="12" height="12" fill="{PALETTE[si % len(PALETTE)]}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly + 1}">{label}</text>')
        lx += w
    out.append("</svg>")
    return "\n".join(out)


def scatter_log_x(
    points: Sequence[Point], *, title: str, x_label: str = "parameters (billions, log scale)",
    y_label: str = "score", width: int = 760, height: int = 380,
) -> str:
    """Score against model size on a log axis, each point labelled."""
    left, right, top, bottom = 52, 20, 36, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    pts = [p for p in points if p.x > 0 and math.isfinite(p.x) and math.isfinite(p.y)]
    out = _header(width, height, title)
    if not pts:
        out.append(f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle" fill="#57606a">'
                   "No open models with a known size on this board.</text></svg>")
        return "\n".join(out)
    lo = math.floor(math.log10(min(p.x for p in pts)))
    hi = math.ceil(math.log10(max(p.x for p in pts)))
    if hi == lo:
        hi = lo + 1
    y_top = _nice_max(max(p.y for p in pts))

    def sx(x: float) -> float:
        return left + plot_w * (math.log10(x) - lo) / (hi - lo)

    def sy(y: float) -> float:
        return top + plot_h - plot_h * max(0.0, min(y, y_top)) / y_top

    for i in range(6):
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#57606a">{y_top * i / 5:g}</text>')
    for e in range(lo, hi + 1):
        x = sx(10**e)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#57606a">{10.0**e:g}</text>')
    out.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 8}" text-anchor="middle" fill="#57606a">'
               f"{escape(x_label)}</text>")
    out.append(f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
               f'fill="#57606a">{escape(y_label)}</text>')
    groups = list(dict.fromkeys(p.group for p in pts))
    for p in pts:
        colour = PALETTE[groups.index(p.group) % len(PALETTE)]
        x, y = sx(p.x), sy(p.y)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"><title>{escape(p.label)}: '
                   f"{p.y:.2f} at {p.x:g}B</title></circle>")
        out.append(f'<text x="{x + 6:.1f}" y="{y - 5:.1f}" font-size="10" fill="#1b1f24">{escape(p.label[:28])}</text>')
    out.append("</svg>")
    return "\n".join(out)
