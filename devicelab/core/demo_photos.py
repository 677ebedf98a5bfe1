"""Deterministic "photos" of a small heater for the device lab's demo and tests: drawn, not downloaded.

Two views: the front (a dial with detent marks, a mode button, an amber lamp on a cream body, a soft shadow and a
light gradient so it reads as a photo rather than a flat render) and the top (a rocker switch). `CONTROLS` gives
where each control was drawn (0..1000 of the view), so a demo clicks their centres and a test knows the truth.
"""
from __future__ import annotations

import io
import math

from PIL import Image, ImageDraw, ImageFilter

SIZE = (800, 600)
# component -> (view, box on 0..1000 of that view, colour)
CONTROLS: dict[str, tuple[str, tuple[int, int, int, int], tuple[int, int, int]]] = {
    "thermostat": ("front", (200, 250, 400, 517), (45, 45, 48)),
    "mode_button": ("front", (550, 300, 650, 433), (176, 52, 44)),
    "light": ("front", (760, 620, 810, 687), (255, 176, 48)),
    "power_switch": ("top", (300, 400, 400, 600), (36, 40, 96)),
}


def _px(box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    w, h = SIZE
    return box[0] * w / 1000, box[1] * h / 1000, box[2] * w / 1000, box[3] * h / 1000


def photo(view: str) -> bytes:
    """The PNG of one view; the same bytes every time."""
    w, h = SIZE
    image = Image.new("RGB", SIZE, (214, 210, 202))
    draw = ImageDraw.Draw(image)
    for y in range(h):  # a wall lit from above
        shade = int(226 - 30 * y / h)
        draw.line([(0, y), (w, y)], fill=(shade, shade - 3, shade - 10))
    shadow = Image.new("L", SIZE, 0)
    ImageDraw.Draw(shadow).rectangle([w * 0.12, h * 0.14, w * 0.92, h * 0.94], fill=110)
    image.paste((120, 116, 108), mask=shadow.filter(ImageFilter.GaussianBlur(14)))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([w * 0.1, h * 0.1, w * 0.9, h * 0.9], radius=24, fill=(238, 232, 214), outline=(150, 144, 130),
                           width=3)
    for name, (on_view, box, colour) in CONTROLS.items():
        if on_view != view:
            continue
        x1, y1, x2, y2 = _px(box)
        if name == "thermostat":
            draw.ellipse([x1, y1, x2, y2], fill=colour)
            cx, cy, r = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) / 2
            for k in range(3):  # the detent marks on the dial's face
                a = math.radians(-120 + 60 * k)
                draw.line([cx + 0.6 * r * math.sin(a), cy - 0.6 * r * math.cos(a), cx + 0.9 * r * math.sin(a),
                           cy - 0.9 * r * math.cos(a)], fill=(230, 230, 230), width=4)
        elif name == "light":
            draw.ellipse([x1, y1, x2, y2], fill=colour)
        else:
            draw.rounded_rectangle([x1, y1, x2, y2], radius=8, fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def centre(component: str) -> tuple[str, int, int]:
    view, box, _ = CONTROLS[component]
    return view, (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
