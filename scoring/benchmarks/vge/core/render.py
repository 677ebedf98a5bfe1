"""View images of a device drawn from its geometry, for devices that ship no image files.

Orthographic views show the body face and each component as a recognisable control (button, dial, switch,
handle, lid, door, display, light, lever) exactly over its box; no names are printed. Displays and lights
follow the state (its `look`: dark or lit, the display text). Axonometric views fold three rendered faces
into a box with affine warps; the dashboard is a close-up of the front panel. Renders are cached on disk.
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.benchmarks.vge.core.device import DASHBOARD, Device

SIZE = 512
K = SIZE / 1000.0
BACKGROUND = (236, 238, 240)
NAME_SHAPES = (
    ("display", "display"), ("screen", "display"), ("light", "light"), ("led", "light"), ("dial", "dial"),
    ("knob", "dial"), ("wheel", "dial"), ("crank", "dial"), ("key", "button"), ("switch", "switch"),
    ("slider", "switch"), ("lever", "lever"), ("door", "door"), ("lid", "lid"), ("cover", "lid"), ("cap", "lid"),
    ("handle", "handle"), ("tray", "handle"), ("basket", "handle"), ("cord", "handle"), ("button", "button"),
)


def _hex(color: str, default: tuple[int, int, int] = (200, 200, 200)) -> tuple[int, int, int]:
    try:
        color = color.lstrip("#")
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
        return shape
    lower = name.lower()
    return next((s for word, s in NAME_SHAPES if word in lower), "button")


def state_look(device: Device, state: str) -> tuple[bool, str]:
    look = device.states[state].look if state in device.states else {}
    dark = bool(look.get("dark", False))
    display = str(look.get("display", "")) if not dark else ""
    if not look and not dark:
        display = f"{sorted(device.states).index(state) % 100:02d}" if state in device.states else ""
    return dark, display


def visual_key(device: Device, state: str) -> str:
    """What of a state shows on the images: only devices with displays or lights depend on the state."""
    if not any(shape_of(device, c) in ("display", "light") for c in device.components):
        return "static"
    dark, display = state_look(device, state)
    return hashlib.sha1(f"{dark}|{display}".encode()).hexdigest()[:10]


def _font(size: int) -> ImageFont.ImageFont:
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Bold.ttf"):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _px(box) -> tuple[float, float, float, float]:
    return (box[0] * K, box[1] * K, box[2] * K, box[3] * K)


def _draw_control(draw: ImageDraw.ImageDraw, shape: str, box, body: tuple[int, int, int], dark: bool, display: str) -> None:
    x1, y1, x2, y2 = _px(box)
    w, h = x2 - x1, y2 - y1
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r = min(w, h) / 2
    edge = (40, 40, 45)
    if shape == "button":
        fill = (205, 60, 55) if sum(body) > 500 else (225, 225, 225)
        draw.rounded_rectangle((x1 + 2, y1 + 3, x2 + 2, y2 + 3), radius=r, fill=_shade(body, 0.55))  # drop shadow
        draw.rounded_rectangle((x1, y1, x2, y2), radius=r, fill=fill, outline=edge, width=2)
        draw.rounded_rectangle((x1 + w * 0.22, y1 + h * 0.2, x2 - w * 0.22, y1 + h * 0.42), radius=r / 3, fill=_shade(fill, 1.35))
    elif shape == "dial":
        draw.ellipse((cx - r + 2, cy - r + 3, cx + r + 2, cy + r + 3), fill=_shade(body, 0.5))
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(70, 72, 78), outline=edge, width=2)
        for i in range(12):  # knurled rim
            a = i * np.pi / 6
            draw.line((cx + np.cos(a) * r * 0.78, cy + np.sin(a) * r * 0.78, cx + np.cos(a) * r * 0.97, cy + np.sin(a) * r * 0.97), fill=(150, 150, 155), width=2)
        draw.ellipse((cx - r * 0.6, cy - r * 0.6, cx + r * 0.6, cy + r * 0.6), fill=(110, 112, 120))
        draw.line((cx, cy, cx + r * 0.45, cy - r * 0.45), fill=(250, 250, 250), width=max(2, int(r / 6)))
    elif shape == "switch":
        draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 4, fill=(35, 35, 38), outline=edge, width=2)
        if h >= w:
            draw.rounded_rectangle((x1 + w * 0.15, y1 + h * 0.1, x2 - w * 0.15, cy), radius=w / 5, fill=(220, 220, 222))
        else:
            draw.rounded_rectangle((x1 + w * 0.1, y1 + h * 0.15, cx, y2 - h * 0.15), radius=h / 5, fill=(220, 220, 222))
    elif shape == "handle":
        draw.rounded_rectangle((x1 + 3, y1 + 4, x2 + 3, y2 + 4), radius=min(w, h) / 2, fill=_shade(body, 0.5))
        draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 2, fill=_relief(body, 0.75), outline=edge, width=2)
        if w >= h:
            for i in range(1, 6):
                gx = x1 + w * i / 6
                draw.line((gx, y1 + h * 0.25, gx, y2 - h * 0.25), fill=_relief(body, 0.5), width=1)
        else:
            for i in range(1, 6):
                gy = y1 + h * i / 6
                draw.line((x1 + w * 0.25, gy, x2 - w * 0.25, gy), fill=_relief(body, 0.5), width=1)
    elif shape == "lid":
        draw.rounded_rectangle((x1, y1, x2, y2), radius=6, fill=_relief(body, 0.85), outline=edge, width=3)
        draw.rounded_rectangle((cx - w * 0.15, y1 + 2, cx + w * 0.15, y1 + h * 0.16), radius=3, fill=_relief(body, 0.55))
    elif shape == "door":
        draw.rectangle((x1, y1, x2, y2), fill=_relief(body, 0.9), outline=edge, width=3)
        if abs(w - h) < 0.25 * max(w, h):
            draw.ellipse((cx - r * 0.75, cy - r * 0.75, cx + r * 0.75, cy + r * 0.75), fill=(60, 75, 90), outline=(180, 180, 185), width=4)
        else:
            draw.rectangle((x1 + w * 0.1, y1 + h * 0.1, x2 - w * 0.25, y2 - h * 0.1), fill=(55, 62, 70))
        draw.rounded_rectangle((x2 - w * 0.16, cy - h * 0.18, x2 - w * 0.08, cy + h * 0.18), radius=4, fill=(200, 200, 205), outline=edge)
    elif shape == "display":
        draw.rectangle((x1, y1, x2, y2), fill=(20, 24, 22), outline=edge, width=2)
        if not dark and display:
            font = _font(max(8, int(h * 0.6)))
            bbox = draw.textbbox((0, 0), display, font=font)
            tw, th = bbox[2] - bbox[0], bbox[3] - bbox[1]
            draw.text((cx - tw / 2 - bbox[0], cy - th / 2 - bbox[1]), display, fill=(120, 255, 170), font=font)
    elif shape == "light":
        color = (80, 230, 110) if not dark else (95, 95, 95)
        draw.ellipse((x1, y1, x2, y2), fill=color, outline=edge, width=1)
    elif shape == "lever":
        draw.rounded_rectangle((x1, y1, x2, y2), radius=min(w, h) / 2, fill=(150, 150, 155), outline=edge, width=2)
        draw.ellipse((x1, cy - h / 2, x1 + h, cy + h / 2), fill=(80, 80, 85))
    else:
        draw.rectangle((x1, y1, x2, y2), outline=edge, width=2)


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


def _render_flat(device: Device, view: str, state: str) -> Image.Image:
    dark, display = state_look(device, state)
    color = _hex(str(device.look.get("color", "#d0d0d0")))
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    if view == DASHBOARD:
        draw.rounded_rectangle((12, 12, SIZE - 12, SIZE - 12), radius=18, fill=_shade(color, 0.85), outline=(50, 50, 55), width=3)
    else:
        rect = _px(_body_rect(device, view))
        draw.rounded_rectangle((rect[0] + 6, rect[1] + 8, rect[2] + 6, rect[3] + 8), radius=14, fill=(190, 192, 196))
        draw.rounded_rectangle(rect, radius=14, fill=color, outline=(50, 50, 55), width=3)
        dash = device.dashboard
        if dash is not None and dash.unlock_view == view:
            draw.rounded_rectangle(_px(dash.unlock_box), radius=8, fill=_shade(color, 0.8), outline=(60, 60, 65), width=2)
    items = [(c.name, c.boxes[view]) for c in device.components.values() if view in c.boxes]
    items.sort(key=lambda item: -(item[1][2] - item[1][0]) * (item[1][3] - item[1][1]))  # big first, small on top
    for name, box in items:
        _draw_control(draw, shape_of(device, name), box, color, dark, display)
    return image


AXO = {"front_top": ("front", "top", "right"), "back_bottom": ("back", "bottom", "left")}


def _render_axonometric(device: Device, view: str, state: str) -> Image.Image:
    main_face, cap_face, side_face = AXO.get(view, AXO["front_top"])
    faces = {}
    for face in (main_face, cap_face, side_face):
        flat = np.asarray(_render_flat(device, face, state))
        x1, y1, x2, y2 = (int(round(v * K)) for v in _body_rect(device, face))
        faces[face] = flat[y1:y2, x1:x2]
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

    def paste(img: np.ndarray, dst: tuple, shade: float) -> None:
        h, w = img.shape[:2]
        src = np.float32([[0, 0], [w, 0], [0, h]])
        target = np.float32([np.asarray(p) * scale + shift for p in dst])
        m = cv2.getAffineTransform(src, target)
        warped = cv2.warpAffine(img, m, (SIZE, SIZE), flags=cv2.INTER_AREA)
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (SIZE, SIZE), flags=cv2.INTER_NEAREST) > 0
        canvas[mask] = np.clip(warped[mask].astype(np.float32) * shade, 0, 255).astype(np.uint8)

    paste(faces[main_face], (a, b, c), 1.0)
    for face, quad in quads.items():
        paste(faces[face], quad, shades[face])
    return Image.fromarray(canvas)


def render_view(device: Device, view: str, state: str) -> bytes:
    """PNG bytes of one view of the device in one state."""
    if view not in device.views:
        raise KeyError(f"device {device.id} has no view '{view}'")
    if device.views[view].kind == "axonometric":
        image = _render_axonometric(device, view, state)
    else:
        image = _render_flat(device, view, state)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


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
