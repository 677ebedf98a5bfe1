"""SVG for the Analysis tab's charts: grouped bars (the board's own), a heat map and lines. Pure.

Same rules as leaderboard.core.svg: plain strings, every label escaped, fixed sizes, None drawn as a gap.
"""
from __future__ import annotations

from html import escape
from typing import Sequence

from leaderboard.core import svg
from scoring.core.analysis import Chart, Series
from scoring.core.numbers import finite


def _open(width: int, height: int, title: str) -> list[str]:
    return svg.header(width, height, title, font_size=11, title_y=18)


def _cell_colour(v: float, top: float) -> str:
    """White (0) to the board's blue (top)."""
    t = max(0.0, min(1.0, v / top if top else 0.0))
    r, g, b = (int(255 + (c - 255) * t) for c in (0x0B, 0x5C, 0xAD))
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap(x: Sequence[str], series: Sequence[Series], *, title: str, y_max: float | None = None,
            value_label: str = "") -> str:
    """One row per series, one cell per x; each cell coloured by its value and labelled with it."""
    label_w = min(260, 40 + 6 * max((len(s.name[:40]) for s in series), default=10))
    cell_w, cell_h = 34, 20
    longest = min(30, max((len(c) for c in x), default=4))
    top = 30 + 6 * longest  # column labels rotated by -60°: they rise about 0.87 and lean right 0.5 of their length
    width = max(360, label_w + cell_w * len(x) + 20 + int(3.5 * longest))
    height = top + cell_h * max(len(series), 1) + 30
    values = [f for s in series for v in s.values if (f := finite(v)) is not None]
    upper = y_max if y_max is not None else max([v for v in values if v > 0], default=1.0)
    out = _open(width, height, title)
    for ci, name in enumerate(x):
        cx = label_w + cell_w * ci + cell_w / 2
        out.append(f'<text transform="translate({cx:.1f} {top - 6}) rotate(-60)" fill="#1b1f24">'
                   f"{escape(name[:30])}</text>")
    # A chart draws a row per entry (thousands of cells on a large board): what is the same for a whole row or
    # column is written once, and each value's colour and ink once.
    columns = [(label_w + cell_w * ci, f"{label_w + cell_w * ci + cell_w / 2:.1f}", escape(name))
               for ci, name in enumerate(x)]
    inks: dict[float, tuple[str, str]] = {}
    for ri, s in enumerate(series):
        y = top + cell_h * ri
        name_text = escape(s.name)
        out.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end">{escape(s.name[:40])}</text>')
        for ci, (cx, text_x, column_name) in enumerate(columns):
            v = finite(s.values[ci]) if ci < len(s.values) else None
            if v is None:
                out.append(f'<rect x="{cx}" y="{y}" width="{cell_w - 1}" height="{cell_h - 1}" fill="#f3f4f6"/>')
                continue
            painted = inks.get(v)
            if painted is None:
                painted = inks[v] = (_cell_colour(v, upper),
                                     "#ffffff" if v / upper > 0.55 else ("#b42318" if v < 0 else "#1b1f24"))
            out.append(f'<rect x="{cx}" y="{y}" width="{cell_w - 1}" height="{cell_h - 1}" fill="{painted[0]}">'
                       f"<title>{name_text} · {column_name}: {v:.2f}</title></rect>")
            out.append(f'<text x="{text_x}" y="{y + 14}" text-anchor="middle" font-size="10" '
                       f'fill="{painted[1]}">{v:.0f}</text>')
    out.append(f'<text x="{label_w}" y="{height - 8}" fill="#57606a">{escape(value_label)} · grey: no samples</text>')
    out.append("</svg>")
    return "\n".join(out)


def lines(x: Sequence[str], series: Sequence[Series], *, title: str, y_label: str = "", y_max: float | None = None,
          width: int = 760, height: int = 360) -> str:
    """One line per series over evenly spaced x labels, with markers and a legend."""
    left, right, top, bottom = 52, 16, 36, 78
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [f for s in series for v in s.values if (f := finite(v)) is not None]
    upper = y_max if y_max is not None else (max(values, default=1.0) or 1.0)
    out = _open(width, height, title)
    for i in range(6):
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#57606a">{upper * i / 5:g}</text>')
    out.append(f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
               f'fill="#57606a">{escape(y_label)}</text>')
    step = plot_w / max(len(x) - 1, 1)
    for i, name in enumerate(x):
        out.append(f'<text x="{left + step * i:.1f}" y="{top + plot_h + 16}" text-anchor="middle">'
                   f"{escape(name)}</text>")
    for si, s in enumerate(series):
        colour = svg.PALETTE[si % len(svg.PALETTE)]
        kept = [(i, f) for i, v in enumerate(s.values) if (f := finite(v)) is not None]
        pts = [(left + step * i, top + plot_h - plot_h * max(0.0, min(v, upper)) / upper) for i, v in kept]
        if len(pts) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for (px, py), (_, v) in zip(pts, kept):
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"><title>{escape(s.name)}: '
                       f"{v:.2f}</title></circle>")
    out.extend(svg.legend([s.name for s in series], left=left, right_edge=width - right, y=top + plot_h + 36))
    out.append("</svg>")
    return "\n".join(out)


def render(chart: Chart, *, title: str) -> str | None:
    """The chart's SVG; None for a figure that is a table only."""
    if chart.kind == "bars":
        bars = [svg.Series(s.name, list(s.values)) for s in chart.series]
        width = max(760, 60 + 60 * len(chart.x))
        return svg.grouped_bars(list(chart.x), bars, title=title, y_label=chart.y_label, y_max=chart.y_max,
                                width=width)
    if chart.kind == "heatmap":
        return heatmap(chart.x, chart.series, title=title, y_max=chart.y_max, value_label=chart.y_label)
    if chart.kind == "lines":
        return lines(chart.x, chart.series, title=title, y_label=chart.y_label, y_max=chart.y_max)
    return None
