"""View images of a device drawn from its geometry, for devices that ship no image files.

Orthographic views show the body face and each component as a recognisable control (button, dial with its
detent marks, toggle, slider, handle, drawer, lid, door, display, light, lever, indicator) exactly over its box;
no names are printed. Every component is drawn in its look for the state (`resolve_looks`): a dial's pointer
sits at its detent, a door swings open onto the interior, a drawer slides out, a lid lifts, a switch's thumb
moves, a light glows in its colour, a display shows its text (blank when the device is dark), a latched button
sits lower; the state's `effect` (flame, beam, steam...) is drawn around the body. Axonometric views fold
three rendered faces into a box with affine warps; the dashboard is a close-up of the front panel.

A view with a photo (a device authored from photographs) shows the photo instead: the state's own photo of the
view (`look.photos[view]`), else the view's photo with the state's overlays drawn on it (`look.overlays[view]`: the
components drawn in their look for the state, over their boxes, as above), else the photo as it is. `view_image`
is the one place deciding which, for the simulator's player and agent API and the device lab's preview alike.

Deterministic: the same device, view and look give the same bytes. Renders are cached on disk keyed by the
device digest, the view and a hash of the resolved look (`visual_key`), so states that look alike share a file.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.benchmarks.vge.core.device import DASHBOARD, Device
from scoring.benchmarks.vge.core.silhouettes import details_for, outline_for

SIZE = 512
K = SIZE / 1000.0
BACKGROUND = (236, 238, 240)
EDGE = (40, 40, 45)
NAME_SHAPES = (
    ("display", "display"), ("screen", "display"), ("light", "light"), ("led", "light"), ("dial", "dial"),
    ("knob", "dial"), ("wheel", "dial"), ("crank", "dial"), ("key", "button"), ("switch", "switch"),
    ("slider", "slider"), ("lever", "lever"), ("door", "door"), ("lid", "lid"), ("cover", "lid"), ("cap", "lid"),
    ("handle", "handle"), ("drawer", "drawer"), ("tray", "tray"), ("basket", "basket"), ("cord", "handle"),
    ("button", "button"),
)
DIALS = ("dial",)
SWITCHES = ("switch", "toggle", "slider", "lever")
OPENABLE = ("door", "lid", "cover", "handle", "drawer", "tray", "basket")
DEFAULT_DETENTS = 8
DIAL_SWEEP = 270.0  # degrees from the first to the last detent mark, centred on 12 o'clock
LIGHT_ON = "#50e66e"
DISPLAY_TEXT = "#78ffaa"


def _hex(color: Any, default: tuple[int, int, int] = (200, 200, 200)) -> tuple[int, int, int]:
    try:
        color = str(color).lstrip("#")
        return tuple(int(color[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]
    except (AttributeError, ValueError):
        return default


def _shade(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    if f >= 1:
        return tuple(int(c + (255 - c) * (f - 1)) for c in rgb)  # type: ignore[return-value]
    return tuple(int(c * f) for c in rgb)  # type: ignore[return-value]


def _relief(body: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    """A shade of the body colour that stands out from it: darker on light bodies, lighter on dark ones."""
    if sum(body) < 300:
        return _shade(body, 1 + (1 - f) * 1.6)
    return _shade(body, f)


def shape_of(device: Device, name: str) -> str:
    shape = device.components[name].look.get("shape")
    if isinstance(shape, str):
        return {"knob": "dial", "cover": "lid"}.get(shape, shape)
    lower = name.lower()
    return next((s for word, s in NAME_SHAPES if word in lower), "button")


def detents_of(device: Device, name: str) -> int:
    """How many positions a dial (or stops a slider) has: its look's `detents`, else 8 (dials) or 2."""
    value = device.components[name].look.get("detents")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2:
        return value
    return DEFAULT_DETENTS if shape_of(device, name) in DIALS else 2


def dial_angle(position: float, detents: int) -> float:
    """The pointer angle (degrees clockwise from 12 o'clock) of a dial at detent `position`."""
    return -DIAL_SWEEP / 2 + DIAL_SWEEP * min(position, detents - 1) / (detents - 1)


# -- the look of a state ------------------------------------------------------------------------------------------


def resolve_looks(device: Device, state: str) -> dict[str, Any]:
    """Every component's look in `state`, with defaults filled in, and the state's effect.

    A component the state's look does not mention is at rest: a dial at its first detent, closed, switched to
    its first position, not pressed, indicator empty. Lights and displays follow the state's `dark` flag: lit
    unless dark; a display shows its own `text`, else the state's legacy `display` text, else nothing.
    """
    look = device.states[state].look if state in device.states else {}
    dark = bool(look.get("dark", False))
    legacy_text = str(look.get("display", "")) if not dark else ""
    components = look.get("components")
    given: Mapping[str, Any] = components if isinstance(components, Mapping) else {}
    out: dict[str, Any] = {}
    for name in device.components:
        shape = shape_of(device, name)
        own = given.get(name, {}) if isinstance(given.get(name), Mapping) else {}
        if shape in DIALS:
            detents = detents_of(device, name)
            angle = own.get("angle")
            resolved: dict[str, Any] = {"angle": float(angle) if angle is not None else dial_angle(float(own.get("position", 0)), detents)}
        elif shape in SWITCHES:
            stops = detents_of(device, name)
            resolved = {"position": min(float(own.get("position", 0)), stops - 1) / (stops - 1)}
        elif shape in OPENABLE:
            resolved = {"open": float(own.get("open", 0))}
        elif shape == "light":
            resolved = {"on": bool(own.get("on", not dark)), "color": own.get("color", LIGHT_ON)}
        elif shape == "display":
            on = bool(own.get("on", not dark))
            resolved = {"on": on, "text": str(own.get("text", legacy_text)) if on else "", "color": own.get("color", DISPLAY_TEXT)}
        elif shape == "indicator":
            resolved = {"level": float(own.get("level", 0)), "color": own.get("color", "#4aa8ff")}
        else:
            resolved = {"pressed": bool(own.get("pressed", False))}
            if "on" in own or "color" in own:
                resolved.update(on=bool(own.get("on", True)), color=own.get("color", LIGHT_ON))
        out[name] = resolved
    effect = look.get("effect")
    return {
        "components": out,
        "effect": {"kind": effect["kind"], "level": float(effect.get("level", 1)), "color": effect.get("color")}
        if isinstance(effect, Mapping) and "kind" in effect else None,
    }


def visual_key(device: Device, state: str) -> str:
    """A hash of everything of `state` that shows on the images: states that look alike share a render."""
    text = json.dumps(resolve_looks(device, state), sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


# -- drawing ------------------------------------------------------------------------------------------------------


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Bold.ttf"):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _px(box) -> tuple[float, float, float, float]:
    return (box[0] * K, box[1] * K, box[2] * K, box[3] * K)


def _polar(cx: float, cy: float, r: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return cx + math.sin(a) * r, cy - math.cos(a) * r


def _draw_cavity(draw: ImageDraw.ImageDraw, x1: float, y1: float, x2: float, y2: float, lit: bool = False) -> None:
    """The inside of the body behind an open door, lid or drawer."""
    w, h = x2 - x1, y2 - y1
    back = (250, 226, 150) if lit else (58, 58, 64)
    draw.rectangle((x1, y1, x2, y2), fill=(26, 26, 30), outline=EDGE, width=2)
    draw.rectangle((x1 + w * 0.14, y1 + h * 0.14, x2 - w * 0.14, y2 - h * 0.14), fill=back)
    for corner_in, corner_out in (((x1 + w * 0.14, y1 + h * 0.14), (x1, y1)), ((x2 - w * 0.14, y1 + h * 0.14), (x2, y1)),
                                  ((x1 + w * 0.14, y2 - h * 0.14), (x1, y2)), ((x2 - w * 0.14, y2 - h * 0.14), (x2, y2))):
        draw.line((*corner_out, *corner_in), fill=(90, 90, 96), width=1)


def _draw_button(draw, x1, y1, x2, y2, body, look) -> None:
    w, h = x2 - x1, y2 - y1
    r = min(w, h) / 2
    fill = (205, 60, 55) if sum(body) > 500 else (225, 225, 225)
    if look.get("pressed"):  # held in or latched: sunk into the body, no shadow, darker, a dark ring
        draw.rounded_rectangle((x1 - 2, y1 - 2, x2 + 2, y2 + 2), radius=r + 2, fill=(30, 30, 34))
        draw.rounded_rectangle((x1 + 2, y1 + 3, x2 - 1, y2), radius=r, fill=_shade(fill, 0.62), outline=EDGE, width=2)
    else:
        draw.rounded_rectangle((x1 + 2, y1 + 3, x2 + 2, y2 + 3), radius=r, fill=_shade(body, 0.55))  # drop shadow
        draw.rounded_rectangle((x1, y1, x2, y2), radius=r, fill=fill, outline=EDGE, width=2)
        draw.rounded_rectangle((x1 + w * 0.22, y1 + h * 0.2, x2 - w * 0.22, y1 + h * 0.42), radius=r / 3, fill=_shade(fill, 1.35))
    if "on" in look:  # a button with a lamp in it: a lit ring around it and a lit centre
        color = _hex(look["color"]) if look["on"] else (90, 90, 90)
        if look["on"]:
            draw.rounded_rectangle((x1 - 5, y1 - 5, x2 + 5, y2 + 5), radius=r + 5, outline=color, width=4)
        q = min(w, h) * 0.22
        draw.ellipse(((x1 + x2) / 2 - q, (y1 + y2) / 2 - q, (x1 + x2) / 2 + q, (y1 + y2) / 2 + q), fill=color)


def _draw_dial(draw, x1, y1, x2, y2, body, look, detents: int) -> None:
    w, h = x2 - x1, y2 - y1
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r = min(w, h) / 2
    mark = _relief(body, 0.35)
    knob = r * 0.78
    for i in range(detents):  # detent marks on the body around the knob
        a = dial_angle(i, detents)
        draw.line((*_polar(cx, cy, knob + 1, a), *_polar(cx, cy, r, a)), fill=mark, width=2 if i else 4)
    draw.ellipse((cx - knob + 2, cy - knob + 3, cx + knob + 2, cy + knob + 3), fill=_shade(body, 0.5))
    draw.ellipse((cx - knob, cy - knob, cx + knob, cy + knob), fill=(70, 72, 78), outline=EDGE, width=2)
    for i in range(16):  # knurled rim
        a = i * 22.5
        draw.line((*_polar(cx, cy, knob * 0.8, a), *_polar(cx, cy, knob * 0.97, a)), fill=(120, 120, 126), width=1)
    draw.ellipse((cx - knob * 0.62, cy - knob * 0.62, cx + knob * 0.62, cy + knob * 0.62), fill=(112, 114, 122))
    angle = look["angle"]
    tip = _polar(cx, cy, knob * 0.95, angle)
    draw.line((cx, cy, *tip), fill=(255, 214, 64), width=max(3, int(knob / 5)))
    draw.ellipse((tip[0] - 2.5, tip[1] - 2.5, tip[0] + 2.5, tip[1] + 2.5), fill=(255, 214, 64))


def _draw_switch(draw, shape, x1, y1, x2, y2, body, look) -> None:
    w, h = x2 - x1, y2 - y1
    p = look["position"]
    vertical = h >= w
    if shape == "lever":
        pivot = (x1 + min(w, h) / 2, (y1 + y2) / 2) if not vertical else ((x1 + x2) / 2, y2 - min(w, h) / 2)
        length = (w if not vertical else h) - min(w, h) / 2
        base = 90.0 if not vertical else 0.0
        angle = base - 50 * p if not vertical else -50 * p  # 0: at rest; 1: swung out
        tip = _polar(*pivot, length, angle)
        draw.line((*pivot, *tip), fill=(60, 60, 66), width=max(6, int(min(w, h) * 0.55)))
        draw.line((*pivot, *tip), fill=(160, 160, 168), width=max(3, int(min(w, h) * 0.35)))
        q = min(w, h) * 0.5
        draw.ellipse((pivot[0] - q, pivot[1] - q, pivot[0] + q, pivot[1] + q), fill=(80, 80, 85), outline=EDGE)
        return
    if shape == "slider":  # a long groove with a knob that slides along it
        draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 3, fill=_relief(body, 0.8), outline=EDGE, width=1)
        if vertical:
            draw.rectangle(((x1 + x2) / 2 - 2, y1 + 4, (x1 + x2) / 2 + 2, y2 - 4), fill=(30, 30, 32))
            ky = y2 - h * 0.15 - (h * 0.7) * p
            draw.rounded_rectangle((x1 + 2, ky - h * 0.12, x2 - 2, ky + h * 0.12), radius=3, fill=(230, 230, 232), outline=EDGE, width=2)
        else:
            draw.rectangle((x1 + 4, (y1 + y2) / 2 - 2, x2 - 4, (y1 + y2) / 2 + 2), fill=(30, 30, 32))
            kx = x1 + w * 0.15 + (w * 0.7) * p
            draw.rounded_rectangle((kx - w * 0.12, y1 + 2, kx + w * 0.12, y2 - 2), radius=3, fill=(230, 230, 232), outline=EDGE, width=2)
        return
    # a rocker/toggle switch: dark housing, the thumb at one end; the "on" end shows a red mark
    draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 4, fill=(35, 35, 38), outline=EDGE, width=2)
    if vertical:
        top = y1 + h * 0.08 if p >= 0.5 else (y1 + y2) / 2
        thumb = (x1 + w * 0.15, top, x2 - w * 0.15, top + h * 0.42)
        draw.rectangle((x1 + w * 0.35, y1 + h * 0.04, x2 - w * 0.35, y1 + h * 0.07), fill=(210, 60, 50))
    else:
        left = x2 - w * 0.08 - w * 0.42 if p >= 0.5 else x1 + w * 0.08
        thumb = (left, y1 + h * 0.15, left + w * 0.42, y2 - h * 0.15)
        draw.rectangle((x2 - w * 0.07, y1 + h * 0.35, x2 - w * 0.04, y2 - h * 0.35), fill=(210, 60, 50))
    draw.rounded_rectangle(thumb, radius=min(w, h) / 6, fill=(220, 220, 222) if p < 0.5 else (250, 250, 250), outline=EDGE)


def _draw_openable(draw, shape, x1, y1, x2, y2, body, look) -> None:
    w, h = x2 - x1, y2 - y1
    f = max(0.0, min(1.0, look["open"]))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r = min(w, h) / 2
    panel = _relief(body, 0.85)
    if shape == "door":
        if f > 0:
            _draw_cavity(draw, x1, y1, x2, y2, lit=True)
            # the leaf swings towards the viewer on its left hinge: a narrowing trapezoid over the hinge side
            leaf = w * (1 - f * 0.82)
            out = w * 0.28 * f
            poly = [(x1, y1), (x1 + leaf, y1 + h * 0.08 * f), (x1 + leaf, y2 - h * 0.08 * f), (x1, y2)]
            poly = [(px - out * (px - x1) / max(leaf, 1) * 1.6, py) for px, py in poly]
            draw.polygon(poly, fill=_relief(body, 0.9), outline=EDGE)
            draw.line((poly[1][0], poly[1][1], poly[2][0], poly[2][1]), fill=EDGE, width=3)
            return
        draw.rectangle((x1, y1, x2, y2), fill=_relief(body, 0.9), outline=EDGE, width=3)
        if abs(w - h) < 0.25 * max(w, h):
            draw.ellipse((cx - r * 0.75, cy - r * 0.75, cx + r * 0.75, cy + r * 0.75), fill=(60, 75, 90), outline=(180, 180, 185), width=4)
        else:
            draw.rectangle((x1 + w * 0.1, y1 + h * 0.1, x2 - w * 0.25, y2 - h * 0.1), fill=(55, 62, 70))
        draw.rounded_rectangle((x2 - w * 0.16, cy - h * 0.18, x2 - w * 0.08, cy + h * 0.18), radius=4, fill=(200, 200, 205), outline=EDGE)
    elif shape in ("lid", "cover"):
        if f > 0:
            _draw_cavity(draw, x1, y1, x2, y2)
            # hinged at the top edge: the lid rises and foreshortens above its opening
            lh = h * (1 - 0.7 * f)
            top = y1 - h * 0.55 * f
            draw.rounded_rectangle((x1 - w * 0.04 * f, top, x2 + w * 0.04 * f, top + lh), radius=6, fill=panel, outline=EDGE, width=3)
            draw.line((x1, y1, x1 - w * 0.04 * f, top + lh), fill=EDGE, width=2)
            draw.line((x2, y1, x2 + w * 0.04 * f, top + lh), fill=EDGE, width=2)
            return
        draw.rounded_rectangle((x1, y1, x2, y2), radius=6, fill=panel, outline=EDGE, width=3)
        draw.rounded_rectangle((cx - w * 0.15, y1 + 2, cx + w * 0.15, y1 + h * 0.16), radius=3, fill=_relief(body, 0.55))
    elif shape in ("drawer", "tray", "basket"):
        dx, dy, grow = w * 0.06 * f, h * 0.9 * f, 1 + 0.3 * f  # slides towards the viewer: lower and larger
        fx1, fy1 = cx - w * grow / 2 + dx, cy - h * grow / 2 + dy
        fx2, fy2 = cx + w * grow / 2 + dx, cy + h * grow / 2 + dy
        if f > 0:
            draw.rectangle((x1, y1, x2, y2), fill=(22, 22, 26), outline=EDGE, width=2)  # the empty slot
            side = _relief(body, 0.6)
            draw.polygon([(x1, y1), (fx1, fy1), (fx1, fy2), (x1, y2)], fill=side, outline=EDGE)
            draw.polygon([(x2, y1), (fx2, fy1), (fx2, fy2), (x2, y2)], fill=side, outline=EDGE)
            if shape == "basket":  # the mesh of the basket shows above its front
                draw.rectangle((fx1, y1, fx2, fy1), fill=(70, 70, 76))
                for i in range(1, 8):
                    gx = fx1 + (fx2 - fx1) * i / 8
                    draw.line((gx, y1, gx, fy1), fill=(130, 130, 136))
        draw.rounded_rectangle((fx1, fy1, fx2, fy2), radius=min(w, h) / 5, fill=_relief(body, 0.75), outline=EDGE, width=2)
        draw.rounded_rectangle((fx1 + (fx2 - fx1) * 0.3, fy1 + (fy2 - fy1) * 0.35, fx2 - (fx2 - fx1) * 0.3, fy1 + (fy2 - fy1) * 0.62),
                               radius=4, fill=(40, 40, 44))  # the grip
    else:  # a handle or a part one can grasp and lift off (open = lifted away)
        if f > 0:
            draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 2, fill=(30, 30, 34), outline=(120, 120, 126), width=2)
            for i in range(0, 12, 2):  # a dashed outline where it was
                t = x1 + w * i / 12
                draw.line((t, y1 - 4, t + w / 12, y1 - 4), fill=(200, 60, 50), width=2)
            lift = h * 0.9 * f + 6
            y1, y2 = y1 - lift, y2 - lift
        draw.rounded_rectangle((x1 + 3, y1 + 4, x2 + 3, y2 + 4), radius=min(w, h) / 2, fill=_shade(body, 0.5))
        draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 2, fill=_relief(body, 0.75), outline=EDGE, width=2)
        if w >= h:
            for i in range(1, 6):
                draw.line((x1 + w * i / 6, y1 + h * 0.25, x1 + w * i / 6, y2 - h * 0.25), fill=_relief(body, 0.5), width=1)
        else:
            for i in range(1, 6):
                draw.line((x1 + w * 0.25, y1 + h * i / 6, x2 - w * 0.25, y1 + h * i / 6), fill=_relief(body, 0.5), width=1)


def _draw_display(draw, x1, y1, x2, y2, look) -> None:
    w, h = x2 - x1, y2 - y1
    on = look["on"]
    draw.rectangle((x1, y1, x2, y2), fill=(24, 44, 34) if on else (14, 14, 16), outline=EDGE, width=2)
    text = look["text"]
    if on and text:
        size = max(8, int(min(h * 0.62, 1.55 * (w - 6) / max(len(text), 1))))
        font = _font(size)
        bbox = draw.textbbox((0, 0), text, font=font)
        tw, th = bbox[2] - bbox[0], bbox[3] - bbox[1]
        draw.text(((x1 + x2) / 2 - tw / 2 - bbox[0], (y1 + y2) / 2 - th / 2 - bbox[1]), text, fill=_hex(look["color"]), font=font)


def _draw_light(draw, x1, y1, x2, y2, look) -> None:
    w, h = x2 - x1, y2 - y1
    if look["on"]:
        color = _hex(look["color"], (80, 230, 110))
        g = max(w, h) * 0.45  # halo
        draw.ellipse((x1 - g, y1 - g, x2 + g, y2 + g), fill=_shade(color, 1.55))
        draw.ellipse((x1 - g / 2, y1 - g / 2, x2 + g / 2, y2 + g / 2), fill=_shade(color, 1.25))
        draw.ellipse((x1, y1, x2, y2), fill=color, outline=EDGE, width=1)
        draw.ellipse((x1 + w * 0.25, y1 + h * 0.2, x1 + w * 0.5, y1 + h * 0.45), fill=(255, 255, 255))
    else:
        draw.ellipse((x1, y1, x2, y2), fill=(78, 78, 82), outline=EDGE, width=1)
        draw.ellipse((x1 + w * 0.25, y1 + h * 0.2, x1 + w * 0.45, y1 + h * 0.4), fill=(120, 120, 124))


def _draw_indicator(draw, x1, y1, x2, y2, look) -> None:
    w, h = x2 - x1, y2 - y1
    draw.rounded_rectangle((x1, y1, x2, y2), radius=3, fill=(30, 30, 34), outline=EDGE)
    n = 4
    lit = round(look["level"] * n)
    color = _hex(look["color"], (74, 168, 255))
    for i in range(n):
        if w >= h:
            cell = (x1 + 3 + (w - 6) * i / n + 1, y1 + 3, x1 + 3 + (w - 6) * (i + 1) / n - 1, y2 - 3)
        else:
            cell = (x1 + 3, y2 - 3 - (h - 6) * (i + 1) / n + 1, x2 - 3, y2 - 3 - (h - 6) * i / n - 1)
        draw.rectangle(cell, fill=color if i < lit else (70, 70, 74))


def _draw_control(draw: ImageDraw.ImageDraw, shape: str, box, body: tuple[int, int, int], look: Mapping[str, Any], detents: int) -> None:
    _draw_control_px(draw, shape, _px(box), body, look, detents)


def _draw_control_px(draw: ImageDraw.ImageDraw, shape: str, rect: tuple[float, float, float, float],
                     body: tuple[int, int, int], look: Mapping[str, Any], detents: int) -> None:
    x1, y1, x2, y2 = rect
    if shape == "button":
        _draw_button(draw, x1, y1, x2, y2, body, look)
    elif shape in DIALS:
        _draw_dial(draw, x1, y1, x2, y2, body, look, detents)
    elif shape in SWITCHES:
        _draw_switch(draw, shape, x1, y1, x2, y2, body, look)
    elif shape in OPENABLE:
        _draw_openable(draw, shape, x1, y1, x2, y2, body, look)
    elif shape == "display":
        _draw_display(draw, x1, y1, x2, y2, look)
    elif shape == "light":
        _draw_light(draw, x1, y1, x2, y2, look)
    elif shape == "indicator":
        _draw_indicator(draw, x1, y1, x2, y2, look)
    else:
        draw.rectangle((x1, y1, x2, y2), outline=EDGE, width=2)


def _draw_effect(draw: ImageDraw.ImageDraw, effect: Mapping[str, Any] | None, rect: tuple[float, float, float, float]) -> None:
    """What the device gives off, around its body `rect` (pixels): above the top, on the face or below it."""
    if not effect:
        return
    x1, y1, x2, y2 = rect
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2
    level = max(0.15, effect["level"])
    kind = effect["kind"]
    color = _hex(effect["color"], (0, 0, 0)) if effect.get("color") else None
    room = max(12.0, y1 - 6)  # space above the body
    if kind == "flame":
        fh = min(room, 40 + 140 * level)
        fw = 12 + 40 * level
        draw.polygon([(cx - fw / 2, y1), (cx, y1 - fh), (cx + fw / 2, y1)], fill=color or (255, 150, 30))
        draw.polygon([(cx - fw / 4, y1), (cx, y1 - fh * 0.6), (cx + fw / 4, y1)], fill=(255, 236, 120))
    elif kind in ("steam", "mist", "smoke"):
        base = color or {"steam": (250, 250, 252), "mist": (196, 226, 246), "smoke": (70, 70, 74)}[kind]
        puffs = 3 + int(4 * level)
        for i in range(puffs):
            py = y1 - 10 - (room - 14) * (i + 0.5) / puffs
            px = cx + (w * 0.18) * math.sin(i * 1.7)
            pr = 8 + 10 * level + 2 * i
            draw.ellipse((px - pr, py - pr, px + pr, py + pr), fill=base, outline=_shade(base, 0.8))
    elif kind == "beam":
        c = color or (255, 246, 170)
        r = min(w, h) * (0.3 + 0.25 * level)
        cy = (y1 + y2) / 2
        draw.ellipse((cx - r * 1.5, cy - r * 1.5, cx + r * 1.5, cy + r * 1.5), outline=c, width=6)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c)
        for a in range(0, 360, 30):
            draw.line((*_polar(cx, cy, r * 1.6, a), *_polar(cx, cy, r * 2.2, a)), fill=_shade(c, 0.9), width=3)
    elif kind == "sparks":
        c = color or (255, 230, 40)
        cy = (y1 + y2) / 2
        for i in range(5 + int(6 * level)):
            angle = i * 47.0
            sx, sy = _polar(cx, cy, min(w, h) * 0.12 * (1 + i % 3), angle)
            draw.line((sx - 9, sy, sx + 9, sy), fill=c, width=3)
            draw.line((sx, sy - 9, sx, sy + 9), fill=c, width=3)
    elif kind == "water":
        c = color or (70, 140, 230)
        draw.ellipse((x1 - w * 0.15, y2 - 10, x2 + w * 0.25, y2 + 14 + 30 * level), fill=c, outline=_shade(c, 0.7), width=2)
    elif kind == "glow":
        c = color or (255, 120, 40)
        for i, f in enumerate((1.6, 1.3)):
            g = 6 + 10 * level * (2 - i)
            draw.rounded_rectangle((x1 - g, y1 - g, x2 + g, y2 + g), radius=18, outline=_shade(c, f), width=int(4 + 4 * level))
    elif kind == "motion":
        c = color or (90, 120, 200)
        for i in range(2 + int(3 * level)):
            off = 10 + 9 * i
            draw.arc((x1 - off, y1 - off, x2 + off, y2 + off), 200, 250, fill=c, width=3)
            draw.arc((x1 - off, y1 - off, x2 + off, y2 + off), 20, 70, fill=c, width=3)


def _body_rect(device: Device, view: str) -> tuple[float, float, float, float]:
    body = device.look.get("body")
    if isinstance(body, list) and len(body) == 3:
        w, h, d = body
        fw, fh = {"front": (w, h), "back": (w, h), "left": (d, h), "right": (d, h), "top": (w, d), "bottom": (w, d)}.get(view, (w, h))
        scale = 760 / max(body)
        return (500 - fw * scale / 2, 500 - fh * scale / 2, 500 + fw * scale / 2, 500 + fh * scale / 2)
    boxes = [c.boxes[view] for c in device.components.values() if view in c.boxes]
    if not boxes:
        return (200.0, 200.0, 800.0, 800.0)
    return (
        max(20.0, min(b[0] for b in boxes) - 70.0), max(20.0, min(b[1] for b in boxes) - 70.0),
        min(980.0, max(b[2] for b in boxes) + 70.0), min(980.0, max(b[3] for b in boxes) + 70.0),
    )


def _draw_body(draw: ImageDraw.ImageDraw, outline: str, rect: tuple[float, float, float, float], color: tuple[int, int, int]) -> None:
    x1, y1, x2, y2 = rect
    w, h = x2 - x1, y2 - y1
    edge = (50, 50, 55)
    if outline == "taper":  # narrower at the top (a kettle, a lamp's column)
        inset = w * 0.06
        draw.polygon([(x1 + inset + 6, y1 + 8), (x2 - inset + 6, y1 + 8), (x2 + 6, y2 + 8), (x1 + 6, y2 + 8)], fill=(190, 192, 196))
        draw.polygon([(x1 + inset, y1), (x2 - inset, y1), (x2, y2), (x1, y2)], fill=color, outline=edge, width=3)
        return
    radius = min(w, h) * 0.22 if outline == "round" else 14
    draw.rounded_rectangle((x1 + 6, y1 + 8, x2 + 6, y2 + 8), radius=radius, fill=(190, 192, 196))
    draw.rounded_rectangle(rect, radius=radius, fill=color, outline=edge, width=3)
    draw.line((x1 + radius, y1 + 10, x2 - radius, y1 + 10), fill=_shade(color, 1.25), width=3)  # highlight


ROLES = {"dark": (38, 40, 46), "glass": (74, 96, 118), "metal": (188, 190, 198), "rubber": (58, 58, 62)}


def _draw_details(draw: ImageDraw.ImageDraw, details, rect: tuple[float, float, float, float], color: tuple[int, int, int]) -> None:
    """The category's recognisable parts (silhouettes.py), in the body's rectangle."""
    x1, y1, x2, y2 = rect
    w, h = x2 - x1, y2 - y1

    def at(fx: float, fy: float) -> tuple[float, float]:
        return x1 + fx * w, y1 + fy * h

    for _, kind, coords, role in details:
        fill = color if role == "body" else _relief(color, 0.8) if role == "relief" else ROLES[role]
        outline = (50, 50, 55)
        if kind == "rect":
            draw.rectangle((*at(coords[0], coords[1]), *at(coords[2], coords[3])), fill=fill, outline=outline, width=2)
        elif kind == "ellipse":
            draw.ellipse((*at(coords[0], coords[1]), *at(coords[2], coords[3])), fill=fill, outline=outline, width=2)
        elif kind == "poly":
            draw.polygon([at(*p) for p in coords], fill=fill, outline=outline)
        elif kind == "ring":
            cx, cy = at(coords[0], coords[1])
            r = coords[2] * min(w, h)
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=2)
            draw.ellipse((cx - r * 0.35, cy - r * 0.35, cx - r * 0.1, cy - r * 0.1), fill=_shade(fill, 1.4))  # a glint
        elif kind == "grille":
            gx1, gy1 = at(coords[0], coords[1])
            gx2, gy2 = at(coords[2], coords[3])
            n = coords[4]
            for i in range(n):
                sy = gy1 + (gy2 - gy1) * (i + 0.25) / n
                draw.rounded_rectangle((gx1, sy, gx2, sy + (gy2 - gy1) * 0.5 / n), radius=2, fill=fill)


def _render_flat(device: Device, view: str, looks: Mapping[str, Any], *, effect: bool = True) -> Image.Image:
    color = _hex(str(device.look.get("color", "#d0d0d0")))
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    if view == DASHBOARD:
        draw.rounded_rectangle((12, 12, SIZE - 12, SIZE - 12), radius=18, fill=_shade(color, 0.85), outline=(50, 50, 55), width=3)
    else:
        rect = _px(_body_rect(device, view))
        if effect and looks["effect"] and looks["effect"]["kind"] in ("glow", "motion", "water"):
            _draw_effect(draw, looks["effect"], rect)  # behind the body
        details = details_for(device.category, view)
        _draw_details(draw, [d for d in details if d[0] == "behind"], rect, color)
        _draw_body(draw, outline_for(device.category, view), rect, color)
        _draw_details(draw, [d for d in details if d[0] == "on"], rect, color)
        dash = device.dashboard
        if dash is not None and dash.unlock_view == view:
            draw.rounded_rectangle(_px(dash.unlock_box), radius=8, fill=_shade(color, 0.8), outline=(60, 60, 65), width=2)
    items = [(c.name, c.boxes[view]) for c in device.components.values() if view in c.boxes]
    items.sort(key=lambda item: -(item[1][2] - item[1][0]) * (item[1][3] - item[1][1]))  # big first, small on top
    for name, box in items:
        _draw_control(draw, shape_of(device, name), box, color, looks["components"][name], detents_of(device, name))
    if effect and view != DASHBOARD and looks["effect"] and looks["effect"]["kind"] not in ("glow", "motion", "water"):
        _draw_effect(draw, looks["effect"], _px(_body_rect(device, view)))
    return image


AXO = {"front_top": ("front", "top", "right"), "back_bottom": ("back", "bottom", "left")}


def _render_axonometric(device: Device, view: str, looks: Mapping[str, Any]) -> Image.Image:
    main_face, cap_face, side_face = AXO.get(view, AXO["front_top"])
    faces = {}
    for face in (main_face, cap_face, side_face):
        x1, y1, x2, y2 = (int(round(v * K)) for v in _body_rect(device, face))
        faces[face] = np.asarray(_render_flat(device, face, looks, effect=False).crop((x1, y1, x2, y2)))
    fh, fw = faces[main_face].shape[:2]
    depth = max(faces[cap_face].shape[0], 8)
    o = np.array([0.55 * depth, -0.45 * depth]) if view == "front_top" else np.array([0.55 * depth, 0.45 * depth])
    a = np.array([0.0, 0.0])
    b, c = a + [fw, 0], a + [0, fh]
    d = a + [fw, fh]
    if view == "front_top":
        quads = {cap_face: (a + o, b + o, a), side_face: (b, b + o, d)}
        shades = {cap_face: 1.12, side_face: 0.8}
    else:
        quads = {cap_face: (c, d, c + o), side_face: (b, b + o, d)}
        shades = {cap_face: 0.72, side_face: 0.85}
    points = np.array([a, b, c, d, a + o, b + o, c + o, d + o])
    lo, hi = points.min(axis=0), points.max(axis=0)
    scale = 0.84 * SIZE / max(hi - lo)
    shift = (SIZE - (hi - lo) * scale) / 2 - lo * scale
    canvas = np.full((SIZE, SIZE, 3), BACKGROUND, dtype=np.uint8)
    import cv2  # imported here: the benchmark registry imports this module, and only drawing needs OpenCV (~60 MiB)

    def paste(img: np.ndarray, dst: tuple, shade: float) -> None:
        h, w = img.shape[:2]
        src = np.array([[0, 0], [w, 0], [0, h]], dtype=np.float32)
        target = np.array([np.asarray(p) * scale + shift for p in dst], dtype=np.float32)
        m = cv2.getAffineTransform(src, target)
        if shade != 1.0:
            img = cv2.convertScaleAbs(img, alpha=shade)
        # only the pixels that come from inside the face are written: the rest of the canvas stays
        cv2.warpAffine(img, m, (SIZE, SIZE), dst=canvas, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)

    paste(faces[main_face], (a, b, c), 1.0)
    for face, quad in quads.items():
        paste(faces[face], quad, shades[face])
    image = Image.fromarray(canvas)
    if looks["effect"]:
        box = np.array([p * scale + shift for p in points])
        rect = (float(box[:, 0].min()), float(box[:, 1].min()), float(box[:, 0].max()), float(box[:, 1].max()))
        _draw_effect(ImageDraw.Draw(image), looks["effect"], rect)
    return image


def render_image(device: Device, view: str, state: str) -> Image.Image:
    """The image of one view of the device in one state."""
    if view not in device.views:
        raise KeyError(f"device {device.id} has no view '{view}'")
    if state not in device.states:
        raise KeyError(f"device {device.id} has no state '{state}'")
    looks = resolve_looks(device, state)
    if device.views[view].kind == "axonometric":
        return _render_axonometric(device, view, looks)
    return _render_flat(device, view, looks)


def png_bytes(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def render_view(device: Device, view: str, state: str) -> bytes:
    """PNG bytes of one view of the device in one state."""
    return png_bytes(render_image(device, view, state))


def cached_render(device: Device, view: str, state: str, cache_dir: Path) -> Path:
    """The rendered PNG's path under `cache_dir`, keyed by device hash, view and visual state."""
    key = visual_key(device, state)
    path = Path(cache_dir) / device.digest[:20] / f"{view}-{key}.png"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{hashlib.sha1(str(path).encode()).hexdigest()[:6]}.tmp")
        tmp.write_bytes(render_view(device, view, state))
        tmp.replace(path)  # atomic: concurrent requests never see half a file
    return path


# -- photos: a state's own photo, or overlays drawn on the view's photo ------------------------------------------

# The values a state's look may give a component (`look.components[name]`), by the shapes that read them.
LOOK_VALUES: dict[str, type] = {"on": bool, "color": str, "text": str, "open": float, "position": float,
                                "pressed": bool, "level": float, "angle": float}


def state_photo(device: Device, view: str, state: str) -> str | None:
    """The file of the state's own photo of `view` (`look.photos[view]`), if it has one."""
    photos = device.states[state].look.get("photos") if state in device.states else None
    name = photos.get(view) if isinstance(photos, Mapping) else None
    return name if isinstance(name, str) else None


def overlays_of(device: Device, view: str, state: str) -> tuple[str, ...]:
    """The components the state draws over the view's photo (`look.overlays[view]`), those with a box there."""
    overlays = device.states[state].look.get("overlays") if state in device.states else None
    names = overlays.get(view) if isinstance(overlays, Mapping) else None
    if not isinstance(names, list):
        return ()
    return tuple(name for name in names
                 if isinstance(name, str) and name in device.components and view in device.components[name].boxes)


def look_key(device: Device, view: str, state: str) -> str:
    """What `view` shows in `state`, as a short hash: two states with the same key on every view look alike."""
    photo = state_photo(device, view, state)
    if photo is not None:
        return f"photo:{photo}"
    if not device.views[view].image:
        return visual_key(device, state)
    looks = resolve_looks(device, state)["components"]
    text = json.dumps({name: looks[name] for name in overlays_of(device, view, state)}, sort_keys=True)
    return "overlays:" + hashlib.sha1(text.encode()).hexdigest()[:12]


def draw_overlays(photo: Image.Image, device: Device, view: str, state: str) -> Image.Image:
    """The view's photo with the state's overlays drawn on it: each listed component drawn in its look for the
    state (a lit lamp, a display's text, a door swung open, a dial's pointer), exactly over its box."""
    image = photo.convert("RGB")
    draw = ImageDraw.Draw(image)
    looks = resolve_looks(device, state)["components"]
    body = _hex(str(device.look.get("color", "#d0d0d0")))
    w, h = image.size
    items = [(name, device.components[name].boxes[view]) for name in overlays_of(device, view, state)]
    items.sort(key=lambda item: -(item[1][2] - item[1][0]) * (item[1][3] - item[1][1]))  # big first, small on top
    for name, box in items:
        rect = (box[0] * w / 1000, box[1] * h / 1000, box[2] * w / 1000, box[3] * h / 1000)
        _draw_control_px(draw, shape_of(device, name), rect, body, looks[name], detents_of(device, name))
    return image


def view_image(device: Device, view: str, state: str, *, photo_path: Callable[[str], Path | None],
               cache_dir: Path) -> Path:
    """The file a player sees of `view` in `state`: the state's own photo of the view; else the view's photo with
    the state's overlays drawn on it (cached under `cache_dir`); else the view's photo; else the rendered image.
    `photo_path(file name)` finds a photo the definition names (None: the device has no such file)."""
    if view not in device.views:
        raise KeyError(f"device {device.id} has no view '{view}'")
    if state not in device.states:
        raise KeyError(f"device {device.id} has no state '{state}'")
    own = state_photo(device, view, state)
    if own is not None and (path := photo_path(own)) is not None:
        return path
    image = device.views[view].image
    base = photo_path(image) if image else None
    if base is None:
        return cached_render(device, view, state, cache_dir)
    if not overlays_of(device, view, state):
        return base
    stat = base.stat()  # a replaced photo under the same name draws anew
    key = hashlib.sha1(f"{base}:{stat.st_mtime_ns}:{stat.st_size}:{look_key(device, view, state)}".encode())
    path = Path(cache_dir) / device.digest[:20] / f"{view}-photo-{key.hexdigest()[:16]}.png"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with Image.open(base) as photo:
            drawn = draw_overlays(photo, device, view, state)
        tmp = path.with_suffix(f".{hashlib.sha1(str(path).encode()).hexdigest()[:6]}.tmp")
        tmp.write_bytes(png_bytes(drawn))
        tmp.replace(path)
    return path
