"""Which components an instruction's words name: an instruction must name a component unambiguously.

Issue 32: "Press the round red button" on a panel with two red buttons. A mention is a kind word (button, dial,
switch, door, ...) with the describing words right before it (colour, shape, size, a label from the component's
name, a place: "the round red button", "the power button", "the small button") and a place right after it ("the
button on the left", "the dial at the top of the panel"). It names the components whose traits hold every one of
those words; an instruction is ambiguous when a mention fits more than one component of its device.

The traits of a component are the words the generator and the practice texts use: the words of its name
("power_button": power, button), its kind (the shape it is drawn as, with synonyms: a dial is a knob), its colour
as drawn (a button is red on a light body, grey on a dark one), round for buttons, dials and lights, its face and
where its box lies on it (left/right/top/bottom/middle), "panel" when it sits on the dashboard panel, and small or
big when it is the smallest or biggest of several of its kind on the device. Pure: no Django, no drawing.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scoring.benchmarks.vge.core.device import Device
from scoring.benchmarks.vge.core.render import shape_of

# kind words -> the shapes they name; a kind word also names a component whose name ends in it ("winding_key": key)
KINDS: dict[str, tuple[str, ...]] = {
    "button": ("button",), "key": (), "dial": ("dial",), "knob": ("dial",), "switch": ("switch", "toggle"),
    "toggle": ("toggle", "switch"), "slider": ("slider",), "lever": ("lever",), "door": ("door",), "lid": ("lid",),
    "cover": ("lid", "cover"), "drawer": ("drawer",), "tray": ("tray",), "basket": ("basket",),
    "handle": ("handle",), "display": ("display",), "screen": ("display",), "light": ("light",), "lamp": ("light",),
}
COLOURS = ("red", "grey", "gray", "green", "amber", "blue", "white", "orange", "yellow", "black", "cyan")
SHAPES = ("round", "square")
SIZES = ("small", "big", "large", "little", "tiny")
PLACES = ("left", "right", "top", "bottom", "middle", "centre", "center", "upper", "lower", "front", "back", "panel")
SAME = {"gray": "grey", "large": "big", "little": "small", "tiny": "small", "centre": "middle", "center": "middle",
        "upper": "top", "lower": "bottom"}
ROUND = ("button", "dial", "light")
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Mention:
    phrase: str  # the words as written, e.g. "round red button"
    words: frozenset[str]  # the describing words, normalised
    kind: str
    matches: tuple[str, ...]  # the components it fits, in the device's order


def _norm(word: str) -> str:
    return SAME.get(word, word)


def component_traits(device: Device, name: str) -> frozenset[str]:
    """The words that describe one component (see the module's text)."""
    comp = device.components[name]
    shape = shape_of(device, name)
    words = {_norm(w) for w in name.lower().split("_") if w} | {shape}
    words |= {k for k, shapes in KINDS.items() if shape in shapes}
    if shape in ROUND:
        words.add("round")
    if shape == "button":
        body = str(device.look.get("color", "#d0d0d0")).lstrip("#")
        try:
            light = sum(int(body[i:i + 2], 16) for i in (0, 2, 4)) > 500
        except ValueError:
            light = True
        words.add("red" if light else "grey")
    colour = str(comp.look.get("color", "")).lower()
    if colour in COLOURS:
        words.add(_norm(colour))
    dash = device.dashboard
    for view, box in comp.boxes.items():
        if view == "dashboard":
            words.add("panel")
            continue
        words.add(view)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        words.add("left" if cx < 400 else "right" if cx > 600 else "middle")
        words.add("top" if cy < 400 else "bottom" if cy > 600 else "middle")
        if dash is not None and dash.unlock_box is not None and view == dash.unlock_view:
            ux1, uy1, ux2, uy2 = dash.unlock_box
            if ux1 <= cx <= ux2 and uy1 <= cy <= uy2:
                words.add("panel")
    same_kind = [n for n in device.components if shape_of(device, n) == shape]
    if len(same_kind) > 1:
        areas = {n: _area(device, n) for n in same_kind}
        if areas[name] == min(areas.values()) and list(areas.values()).count(areas[name]) == 1:
            words.add("small")
        if areas[name] == max(areas.values()) and list(areas.values()).count(areas[name]) == 1:
            words.add("big")
    return frozenset(words)


def _area(device: Device, name: str) -> float:
    box = next(b for v, b in device.components[name].boxes.items() if v != "dashboard") \
        if any(v != "dashboard" for v in device.components[name].boxes) else next(iter(device.components[name].boxes.values()))
    return float((box[2] - box[0]) * (box[3] - box[1]))


def _is_kind(device: Device, name: str, kind: str) -> bool:
    """Whether a kind word names this component: by the shape it is drawn as, or by its name's last word (a
    "door_button" is a button, not a door)."""
    return shape_of(device, name) in KINDS[kind] or name.lower().split("_")[-1] == kind


def _labels(device: Device) -> set[str]:
    return {_norm(w) for name in device.components for w in name.lower().split("_") if w and w not in KINDS}


def mentions(text: str, device: Device) -> list[Mention]:
    """Every mention of a component kind in `text`, with the components of `device` it fits."""
    tokens = [m.group(0) for m in _WORD.finditer(text.lower())]
    describing = set(COLOURS) | set(SHAPES) | set(SIZES) | set(PLACES) | _labels(device)
    traits = {name: component_traits(device, name) for name in device.components}
    out: list[Mention] = []
    for i, token in enumerate(tokens):
        kind = token[:-1] if token.endswith("s") and token[:-1] in KINDS else token
        if kind not in KINDS or (i + 1 < len(tokens) and tokens[i + 1] in KINDS):
            continue  # "the button light" is a light; "buttons" counts as "button"
        j = i
        while j > 0 and tokens[j - 1] in describing and tokens[j - 1] not in KINDS:
            j -= 1
        before = tokens[j:i]
        after: list[str] = []
        k = i + 1  # "on the left", "at the top of the panel", "on the top right"
        if k < len(tokens) and tokens[k] in ("on", "at", "in") and k + 1 < len(tokens) and tokens[k + 1] == "the":
            k += 2
            while k < len(tokens) and (tokens[k] in PLACES or tokens[k] == "of" or tokens[k] == "the"):
                after.append(tokens[k])
                k += 1
        words = frozenset(_norm(w) for w in before + after if w not in ("of", "the"))
        fits = tuple(n for n, t in traits.items() if _is_kind(device, n, kind) and words <= t)
        out.append(Mention(" ".join(tokens[j:k] if after else tokens[j:i + 1]), words, kind, fits))
    return out


def ambiguous_mentions(text: str, device: Device) -> list[Mention]:
    """The mentions in `text` that fit more than one component of `device` (an instruction must have none)."""
    return [m for m in mentions(text, device) if len(m.matches) > 1]


def unique_phrase(device: Device, component: str, kind: str) -> str | None:
    """The shortest words that name `component` alone as a `kind`: its name's label ("power button"), else its
    size, colour or place ("big button", "button on the left"); None when nothing does."""
    traits = component_traits(device, component)
    label = [w for w in component.lower().split("_") if w and w not in KINDS]
    tries: list[str] = []
    if label:
        tries.append(f"{' '.join(label)} {kind}")
    adjectives = [w for w in (*SIZES, *COLOURS) if w in traits]
    places = [w for w in ("left", "right", "top", "bottom", "middle", "panel") if w in traits]
    tries += [f"{a} {kind}" for a in adjectives]
    tries += [f"{kind} on the {p}" for p in places]
    tries += [f"{a} {kind} on the {p}" for a in adjectives for p in places]
    tries += [f"{kind} on the {p} {q}" for p in ("top", "bottom") if p in traits for q in ("left", "right") if q in traits]
    for phrase in tries:
        found = mentions(f"the {phrase}", device)
        if len(found) == 1 and found[0].matches == (component,):
            return phrase
    return None


def _cased(phrase: str, found: re.Match[str]) -> str:
    """`phrase` in place of `found`, capitalised when `found` was."""
    return phrase if found.group(0)[0].islower() else phrase[0].upper() + phrase[1:]


def disambiguated(text: str, device: Device, component: str) -> str:
    """`text` with each ambiguous mention that fits `component` (the one the goal's transition acts on) replaced by
    words that fit it alone (`unique_phrase`: "The button clicks" -> "The big button clicks")."""
    out = text
    for mention in ambiguous_mentions(text, device):
        if component not in mention.matches:
            continue
        phrase = unique_phrase(device, component, mention.kind)
        if phrase is None:
            continue
        pattern = re.compile(r"\b" + r"\W+".join(map(re.escape, mention.phrase.split())) + r"\b", re.IGNORECASE)
        out = pattern.sub(functools.partial(_cased, phrase), out, count=1)
    return out
