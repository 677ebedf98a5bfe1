"""Server-rendered SVG charts: grouped bars (categories of top models) and a scatter (score vs parameters).

Plain strings out, every label escaped, sizes fixed so the images work in exports and without JavaScript.
Inputs are plain numbers; None values are drawn as gaps, never as zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Sequence

from scoring.core.numbers import finite

PALETTE = ("#0b5cad", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93", "#57606a", "#8ab17d", "#b5838d")


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]
    href: str = ""  # where a click on its bars goes (the model's page)


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float
    group: str = ""
    href: str = ""  # where a click on the point goes (the model's page)


def _link(href: str, inner: str) -> str:
    """`inner` wrapped in a link that opens in the page around the image (target _top: plots sit in <object>)."""
    if not href:
        return inner
    return f'<a href="{escape(href)}" target="_top">{inner}</a>'


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * exponent:
            return step * exponent
    return 10 * exponent


def header(width: int, height: int, title: str, *, font_size: int = 12, title_y: int = 20) -> list[str]:
    """The opening of a chart: the <svg> element (labelled by the title), a white ground and the title line."""
    t = escape(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{t}" font-family="system-ui, sans-serif" font-size="{font_size}">',
        f"<title>{t}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2:.0f}" y="{title_y}" text-anchor="middle" font-size="14" font-weight="600">{t}</text>',
    ]


def legend(names: Sequence[str], *, left: float, right_edge: float, y: float) -> list[str]:
    """One swatch (in PALETTE order) and name per series, wrapped in rows of 16 px from (left, y) before
    right_edge; names are cut to 40 characters."""
    out, lx, ly = [], left, y
    for si, name in enumerate(names):
        w = 18 + 7 * len(name[:40]) + 14
        if lx + w > right_edge:
            lx, ly = left, ly + 16
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="12" height="12" fill="{PALETTE[si % len(PALETTE)]}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly + 1}">{escape(name[:40])}</text>')
        lx += w
    return out


def grouped_bars(
    categories: Sequence[str], series: Sequence[Series], *, title: str, y_label: str = "score", width: int = 760,
    height: int = 360, y_max: float | None = None,
) -> str:
    """Bars per category, one colour per series, with a legend."""
    left, right, top, bottom = 52, 16, 36, 78
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [v for s in series for v in s.values if v is not None and math.isfinite(v)]
    top_value = y_max if y_max is not None else _nice_max(max(values, default=1.0))
    out = header(width, height, title)
    for i in range(6):
        tick = top_value * i / 5
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#57606a">{tick:g}</text>')
    out.append(
        f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" fill="#57606a">'
        f"{escape(y_label)}</text>"
    )
    n_cat = max(len(categories), 1)
    slot = plot_w / n_cat
    bar_w = max(2.0, (slot * 0.8) / max(len(series), 1))
    names = [escape(s.name) for s in series]  # each written once per category: escaped once
    for ci, category in enumerate(categories):
        x0 = left + slot * ci + slot * 0.1
        category_text = escape(category)
        for si, s in enumerate(series):
            v = s.values[ci] if ci < len(s.values) else None
            if v is None or not math.isfinite(v):
                continue
            h = plot_h * max(0.0, min(v, top_value)) / top_value
            x = x0 + bar_w * si
            out.append(_link(s.href,
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[si % len(PALETTE)]}"><title>{names[si]} · {category_text}: {v:.2f}</title></rect>'
            ))
        out.append(
            f'<text x="{left + slot * ci + slot / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle">'
            f"{escape(category)}</text>"
        )
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#57606a"/>')
    # Legend, wrapped in rows under the axis.
    out.extend(legend([s.name for s in series], left=left, right_edge=width - right, y=top + plot_h + 36))
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
    out = header(width, height, title)
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
    placed = place_labels([(sx(p.x), sy(p.y), p.label[:28]) for p in pts], bounds=(left, top, width - right, top + plot_h))
    for p, spot in zip(pts, placed):
        colour = PALETTE[groups.index(p.group) % len(PALETTE)]
        x, y = sx(p.x), sy(p.y)
        hover = f"<title>{escape(p.label)}: {p.y:.2f} at {p.x:g}B</title>"
        mark = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}">{hover}</circle>'
        if spot is not None:
            lx, ly, anchor = spot
            if abs(lx - x) > 15:  # stacked away from its point: a leader line
                mark += (f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{lx:.1f}" y2="{ly - 4:.1f}" stroke="#8c959f" '
                         'stroke-width="0.6"/>')
            mark += (f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" font-size="{LABEL_FONT}" fill="#1b1f24">'
                     f"{escape(p.label[:28])}{hover}</text>")
        out.append(_link(p.href, mark))
    out.append("</svg>")
    return "\n".join(out)


LABEL_FONT = 10
CHAR_W = 5.6  # a generous average glyph width at LABEL_FONT, so estimated boxes cover the drawn text
LABEL_H = 11.0


def label_box(x: float, y: float, text: str, anchor: str) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) a label drawn at (x, y) (its baseline) with this anchor covers."""
    w = CHAR_W * len(text)
    x0 = x if anchor == "start" else (x - w if anchor == "end" else x - w / 2)
    return (x0, y - LABEL_H + 2, x0 + w, y + 2)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(points: Sequence[tuple[float, float, str]], *, bounds: tuple[float, float, float, float],
                 radius: float = 5.0) -> list[tuple[float, float, str] | None]:
    """A spot (x, y, anchor) for each point's label where it overlaps no other label and no point, or None
    when every candidate spot is taken (the point keeps its hover title). Greedy, in the given order."""
    taken: list[tuple[float, float, float, float]] = [
        (x - radius, y - radius, x + radius, y + radius) for x, y, _ in points
    ]
    labels: list[tuple[float, float, float, float]] = []
    out: list[tuple[float, float, str] | None] = []
    for x, y, text in points:
        spot = None
        candidates = [
            (x + radius + 3, y + 4, "start"), (x - radius - 3, y + 4, "end"),
            (x, y - radius - 4, "middle"), (x, y + radius + LABEL_H, "middle"),
        ]
        # Further out, stacked above and below on either side (drawn with a leader line to the point).
        for step in range(1, 8):
            for dy in (-step * (LABEL_H + 1), step * (LABEL_H + 1)):
                candidates += [(x + radius + 14, y + 4 + dy, "start"), (x - radius - 14, y + 4 + dy, "end")]
        for cx, cy, anchor in candidates:
            box = label_box(cx, cy, text, anchor)
            if box[0] < bounds[0] or box[2] > bounds[2] or box[1] < bounds[1] - 12 or box[3] > bounds[3]:
                continue
            own = (x - radius, y - radius, x + radius, y + radius)
            if any(_overlaps(box, b) for b in labels) or any(_overlaps(box, b) for b in taken if b != own):
                continue
            spot = (cx, cy, anchor)
            labels.append(box)
            break
        out.append(spot)
    return out


def metric_panels(
    metrics: Sequence[str], series: Sequence[Series], *, title: str, width: int = 760, panel_h: int = 150,
    columns: int = 3, scales: Sequence[float | None] | None = None,
) -> str:
    """One small bar chart per metric, each on its own axis (a 0-1 ratio is not drawn on a 0-100 axis), the
    series in the same colours in every panel, one legend under them all. `scales`: a fixed axis top per metric
    (None: from that metric's own values)."""
    n = max(len(metrics), 1)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    legend_rows = 1 + sum(len(s.name[:40]) * 7 + 32 for s in series) // max(width - 60, 1)
    height = 36 + rows * (panel_h + 34) + 18 * legend_rows + 12
    out = header(width, height, title)
    pw = width / cols
    for mi, metric in enumerate(metrics):
        r, c = divmod(mi, cols)
        x0, y0 = c * pw, 36 + r * (panel_h + 34)
        left, right, top = x0 + 44, x0 + pw - 10, y0 + 18
        plot_w, plot_h = right - left, panel_h - 24
        values = [f for s in series if mi < len(s.values) and (f := finite(s.values[mi])) is not None]
        fixed = scales[mi] if scales and mi < len(scales) else None
        top_value = fixed if fixed is not None else _nice_max(max((abs(v) for v in values), default=1.0))
        out.append(f'<text x="{x0 + pw / 2:.1f}" y="{y0 + 10:.1f}" text-anchor="middle" font-weight="600">'
                   f"{escape(metric)}</text>")
        for i in range(3):
            tick = top_value * i / 2
            y = top + plot_h - plot_h * i / 2
            out.append(f'<line x1="{left:.1f}" x2="{right:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
            out.append(f'<text x="{left - 4:.1f}" y="{y + 4:.1f}" text-anchor="end" font-size="10" fill="#57606a">'
                       f"{tick:g}</text>")
        bar_w = plot_w / max(len(series), 1)
        for si, s in enumerate(series):
            v = s.values[mi] if mi < len(s.values) else None
            if v is None or not math.isfinite(v):
                continue
            h = plot_h * max(0.0, min(v, top_value)) / top_value
            x = left + bar_w * si + bar_w * 0.1
            out.append(_link(s.href,
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w * 0.8:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[si % len(PALETTE)]}"><title>{escape(s.name)} · {escape(metric)}: {v:.4g}</title></rect>'))
        out.append(f'<line x1="{left:.1f}" x2="{right:.1f}" y1="{top + plot_h:.1f}" y2="{top + plot_h:.1f}" '
                   'stroke="#57606a"/>')
    lx, ly = 44.0, 36 + rows * (panel_h + 34) + 6
    for si, s in enumerate(series):
        label = escape(s.name[:40])
        w = 7 * len(s.name[:40]) + 32
        if lx + w > width - 10:
            lx, ly = 44.0, ly + 18
        out.append(_link(s.href, f'<rect x="{lx:.1f}" y="{ly - 9:.1f}" width="12" height="12" '
                                 f'fill="{PALETTE[si % len(PALETTE)]}"/><text x="{lx + 16:.1f}" y="{ly + 1:.1f}">'
                                 f"{label}<title>{escape(s.name)}</title></text>"))
        lx += w
    out.append("</svg>")
    return "\n".join(out)
