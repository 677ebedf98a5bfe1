"""A small deterministic PLAN-Bench demo set: 48 items (3 per subtask) over images drawn here with PIL.

Same seed, same items, same image bytes. Covers single-choice and open items, multi-image items (up to 4 images),
answer hints in the structured forms the rule judge understands, and two baseline prediction sets (an oracle that
repeats the answers and a seeded random guesser). Pure: returns items and PNG bytes; the caller stores them.
"""
from __future__ import annotations

import io
import random
from dataclasses import dataclass
from typing import Callable

from PIL import Image, ImageDraw

from scoring.benchmarks.plan.core.types import DIMENSION_OF, SUBTASKS, Item, ItemType, Prediction

DEMO_SEED = 20260415
ITEMS_PER_SUBTASK = 3
W, H = 320, 240
COLOURS = {"red": (214, 48, 49), "blue": (9, 132, 227), "green": (0, 184, 148), "yellow": (253, 203, 110),
           "purple": (108, 92, 231), "orange": (225, 112, 85)}  # fmt: skip
ROOMS = ["kitchen", "hall", "bedroom", "bathroom", "office", "garage"]


@dataclass(frozen=True)
class DemoItem:
    item: Item
    images: dict[str, bytes]  # relative path -> PNG bytes


@dataclass(frozen=True)
class Shape:
    kind: str  # box | disc
    colour: str
    x: int
    y: int
    size: int = 40
    label: str = ""


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def draw_scene(shapes: list[Shape], *, caption: str = "", mirror: bool = False, drawer_open: bool | None = None) -> bytes:
    """A table top with boxes and discs (drawn in order: later shapes occlude earlier ones)."""
    image = Image.new("RGB", (W, H), (245, 240, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, H * 2 // 3, W, H), fill=(196, 164, 132))  # the table
    if drawer_open is not None:
        draw.rectangle((W - 110, 20, W - 10, 90), outline=(90, 60, 30), width=3, fill=(222, 184, 135))
        if drawer_open:
            draw.rectangle((W - 125, 55, W - 25, 105), outline=(90, 60, 30), width=3, fill=(205, 160, 110))
    for s in shapes:
        box = (s.x - s.size // 2, s.y - s.size // 2, s.x + s.size // 2, s.y + s.size // 2)
        if s.kind == "disc":
            draw.ellipse(box, fill=COLOURS[s.colour], outline=(40, 40, 40), width=2)
        else:
            draw.rectangle(box, fill=COLOURS[s.colour], outline=(40, 40, 40), width=2)
        if s.label:
            draw.text((s.x - 4, s.y - 6), s.label, fill=(0, 0, 0))
    if mirror:
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    if caption:
        draw = ImageDraw.Draw(image)
        draw.text((8, 6), caption, fill=(30, 30, 30))
    return _png(image)


def draw_route(rooms: list[str], path: list[int]) -> bytes:
    """A floor plan: rooms as labelled cells, the route as a polyline with an arrowhead at the goal."""
    image = Image.new("RGB", (W, H), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    centres = []
    for i, room in enumerate(rooms):
        col, row = i % 3, i // 3
        x0, y0 = 10 + col * 100, 20 + row * 105
        draw.rectangle((x0, y0, x0 + 95, y0 + 95), outline=(60, 60, 60), width=2)
        draw.text((x0 + 6, y0 + 6), room, fill=(20, 20, 20))
        centres.append((x0 + 48, y0 + 55))
    points = [centres[p] for p in path]
    draw.line(points, fill=COLOURS["red"], width=4)
    gx, gy = points[-1]
    draw.ellipse((gx - 7, gy - 7, gx + 7, gy + 7), fill=COLOURS["red"])
    return _png(image)


def _options(rng: random.Random, correct: str, pool: list[str], k: int = 4) -> tuple[dict[str, str], str]:
    others = rng.sample([p for p in pool if p != correct], k - 1)
    choices = others + [correct]
    rng.shuffle(choices)
    options = {letter: text for letter, text in zip("ABCDEF", choices)}
    return options, next(letter for letter, text in options.items() if text == correct)


def _spread(rng: random.Random, colours: list[str], kind: str = "box", y: int = 150) -> list[Shape]:
    xs = sorted(rng.sample(range(40, W - 40, 10), len(colours)))
    # Keep them apart so every shape is visible.
    xs = [40 + i * ((W - 80) // max(1, len(colours) - 1)) for i in range(len(colours))] if len(colours) > 1 else xs
    return [Shape(kind, c, x, y + rng.randint(-10, 10), 36) for c, x in zip(colours, xs)]


Spec = tuple[str, str, str, str | None, dict[str, str] | None, list[bytes]]  # question, type, answer, hint, options, images
Generator = Callable[[random.Random, int], Spec]


def _oo(rng: random.Random, n: int) -> Spec:
    colours = rng.sample(list(COLOURS), 3)
    shapes = [Shape("box", c, 140 + 25 * i, 140 + 8 * i, 70) for i, c in enumerate(colours)]
    front = colours[-1]
    if n % 2 == 0:
        options, letter = _options(rng, front, list(COLOURS))
        return ("Which object is closest to the camera (occludes the others)?", "single_choice", letter, None, options, [draw_scene(shapes)])
    order = ", ".join(reversed(colours))
    return ("List the boxes from front to back by colour, comma-separated.", "open", order, None, None, [draw_scene(shapes)])


def _md(rng: random.Random, n: int) -> Spec:
    shapes = _spread(rng, rng.sample(list(COLOURS), 3))
    mirrored = n % 2 == 0
    first, second = draw_scene(shapes, caption="view 1"), draw_scene(shapes, caption="view 2", mirror=mirrored)
    if n == 2:
        options = {"A": "a mirror image of view 1", "B": "the same as view 1"}
        return ("Is view 2 a mirror image of view 1 or the same view?", "single_choice", "A" if mirrored else "B", None, options, [first, second])
    return ("Is view 2 a mirror image of view 1? Answer yes or no.", "open", "yes" if mirrored else "no", None, None, [first, second])


def _ar(rng: random.Random, n: int) -> Spec:
    colours = rng.sample(list(COLOURS), 3)
    before = _spread(rng, colours)
    moved = rng.randrange(3)
    after = [Shape(s.kind, s.colour, s.x, s.y - 70 if i == moved else s.y, s.size) for i, s in enumerate(before)]
    images = [draw_scene(before, caption="before"), draw_scene(after, caption="after")]
    if n % 2 == 0:
        options, letter = _options(rng, colours[moved], list(COLOURS))
        return ("Which box did the robot lift between the two frames?", "single_choice", letter, None, options, images)
    return ("Which box was lifted? Answer with its colour.", "open", colours[moved], f"Also accept: {colours[moved]} box | {colours[moved]} block", None, images)


def _td(rng: random.Random, n: int) -> Spec:
    colours = rng.sample(list(COLOURS), 3)
    shapes = _spread(rng, colours, kind="disc")
    target = rng.randrange(3)
    where = ["left", "middle", "right"][target]
    if n % 2 == 1:
        options = {"A": "left", "B": "middle", "C": "right"}
        return (f"Where is the {colours[target]} ball?", "single_choice", "ABC"[target], None, options, [draw_scene(shapes)])
    return (f"Where is the {colours[target]} ball? Answer left, middle or right.", "open", where, None, None, [draw_scene(shapes)])


def _sr(rng: random.Random, n: int) -> Spec:
    is_open = rng.random() < 0.5
    image = draw_scene(_spread(rng, rng.sample(list(COLOURS), 2)), drawer_open=is_open)
    if n == 0:
        options = {"A": "open", "B": "closed"}
        return ("Is the drawer open or closed?", "single_choice", "A" if is_open else "B", None, options, [image])
    return ("Is the drawer open? Answer yes or no.", "open", "yes" if is_open else "no", None, None, [image])


def _spr(rng: random.Random, n: int) -> Spec:
    a, b = rng.sample(list(COLOURS), 2)
    ax, bx = rng.sample([70, 160, 250], 2)
    shapes = [Shape("box", a, ax, 150), Shape("disc", b, bx, 150)]
    relation = "left" if ax < bx else "right"
    if n != 1:
        options = {"A": "left of", "B": "right of"}
        return (f"Is the {a} box left of or right of the {b} ball?", "single_choice", "A" if relation == "left" else "B", None, options, [draw_scene(shapes)])
    return (f"Is the {a} box to the left or to the right of the {b} ball? Answer left or right.", "open", relation, None, None, [draw_scene(shapes)])


def _pt(rng: random.Random, n: int) -> Spec:
    total = 4
    done = rng.randint(1, 3)
    frames = []
    for step in range(1, 4):
        filled = min(step, done)
        frames.append(draw_scene([Shape("box", "green" if i < filled else "yellow", 60 + 65 * i, 150, 40) for i in range(total)], caption=f"t={step}"))
    if n % 2 == 0:
        return ("Four boxes must be painted green. After the last frame, how many boxes are done? Answer with a number.", "open", str(done), None, None, frames)
    options = {"A": "1", "B": "2", "C": "3", "D": "4"}
    return ("After the last frame, how many of the four boxes are painted green?", "single_choice", "ABCD"[done - 1], None, options, frames)


def _to(rng: random.Random, n: int) -> Spec:
    heights = [1, 2, 3]
    order = [0, 1, 2]
    rng.shuffle(order)
    frames = [draw_scene([Shape("box", "blue", 160, 170 - 38 * k, 36) for k in range(heights[i])], caption=f"image {j + 1}") for j, i in enumerate(order)]
    # Chronological: the stack grows. Image positions of heights 1, 2, 3:
    answer = ", ".join(str(order.index(h) + 1) for h in range(3))
    return ("A robot stacks blocks. Order the images from earliest to latest, e.g. 2, 3, 1.", "open", answer, None, None, frames)


def _pc(rng: random.Random, n: int) -> Spec:
    frames, total = [], 0
    for k in range(2 + n % 3):
        new = rng.randint(0, 2)
        total += new
        frames.append(draw_scene([Shape("disc", "red", 50 + 60 * i, 150, 30) for i in range(new)], caption=f"room {k + 1}"))
    return ("The robot walks through the rooms shown. How many red balls does it see in total? Answer with a number.", "open", str(total), None, None, frames)


def _ia(rng: random.Random, n: int) -> Spec:
    on_top = rng.random() < 0.5
    shapes = [Shape("box", "blue", 160, 160, 50), Shape("box", "red", 160 if on_top else 250, 112 if on_top else 160, 44)]
    image = draw_scene(shapes, caption="final state")
    if n == 1:
        options = {"A": "yes", "B": "no"}
        return ("Instruction: put the red block on the blue block. Was it carried out?", "single_choice", "A" if on_top else "B", None, options, [image])
    return ("Instruction: put the red block on the blue block. Does the final state satisfy it? Answer yes or no.", "open", "yes" if on_top else "no", None, None, [image])


def _mr(rng: random.Random, n: int) -> Spec:
    direction = rng.choice(["left", "right", "up", "down"])
    dx, dy = {"left": (-80, 0), "right": (80, 0), "up": (0, -60), "down": (0, 40)}[direction]
    a = [Shape("disc", "orange", 160, 130, 36)]
    b = [Shape("disc", "orange", 160 + dx, 130 + dy, 36)]
    images = [draw_scene(a, caption="frame 1"), draw_scene(b, caption="frame 2")]
    options = {"A": "left", "B": "right", "C": "up", "D": "down"}
    letter = next(k for k, v in options.items() if v == direction)
    return ("In which direction did the orange ball move?", "single_choice", letter, None, options, images)


def _cs(rng: random.Random, n: int) -> Spec:
    labels = ["A", "B", "C"]
    rng.shuffle(labels)
    # labels[0] at the bottom, labels[2] on top: pick the top first.
    shapes = [Shape("box", c, 160, 170 - 42 * k, 40, labels[k]) for k, c in enumerate(["yellow", "green", "purple"])]
    answer = ", ".join(reversed(labels))
    return ("Unstack the tower one block at a time. In which order are the blocks picked? Answer with their letters, comma-separated.", "open", answer, None, None, [draw_scene(shapes)])


def _cp(rng: random.Random, n: int) -> Spec:
    items = rng.randint(3, 7)
    capacity = rng.choice([2, 3])
    trips = -(-items // capacity)
    shapes = [Shape("disc", "purple", 30 + 40 * i, 160, 28) for i in range(items)]
    question = f"The robot's basket holds {capacity} balls. How many trips does it need to carry all the balls shown? Answer with a number."
    return (question, "open", str(trips), f"Also accept: {trips} trips", None, [draw_scene(shapes)])


def _rp(rng: random.Random, n: int) -> Spec:
    colours = rng.sample(list(COLOURS), 3)
    start = _spread(rng, colours)
    moved = sorted(rng.sample(range(3), 2))
    goal = [Shape(s.kind, s.colour, s.x, s.y - 60 if i in moved else s.y, s.size) for i, s in enumerate(start)]
    answer = ", ".join(colours[i] for i in moved)
    images = [draw_scene(start, caption="start"), draw_scene(goal, caption="goal")]
    return ("Which boxes must be moved to reach the goal? List their colours, comma-separated.", "open", answer, "In any order", None, images)


def _dp(rng: random.Random, n: int) -> Spec:
    steps = ["open fridge", "take milk", "take butter", "close fridge"]
    question = "To get milk and butter from the fridge, order these steps: close fridge; take butter; open fridge; take milk. Answer as a comma-separated list."
    shapes = [Shape("box", "blue", 90, 130, 90), Shape("disc", "yellow", 210, 150, 30), Shape("box", "orange", 260, 150, 30)]
    return (question, "open", ", ".join(steps), "Steps 2 and 3 may be swapped", None, [draw_scene(shapes, caption="fridge")])


def _route(rng: random.Random, n: int) -> Spec:
    rooms = ROOMS[:]
    rng.shuffle(rooms)
    path = [0, 1, 4] if n % 2 == 0 else [3, 4, 5, 2]
    answer = " -> ".join(rooms[p] for p in path)
    image = draw_route(rooms, path)
    if n == 2:
        options, letter = _options(rng, rooms[path[-1]], rooms)
        return ("Following the red route, in which room does the robot end?", "single_choice", letter, None, options, [image])
    return ("List the rooms the red route passes through, from start to goal, separated by ->.", "open", answer, None, None, [image])


GENERATORS: dict[str, Generator] = {
    "OO": _oo, "MD": _md, "AR": _ar, "TD": _td, "SR": _sr, "SpR": _spr, "PT": _pt, "TO": _to, "PC": _pc,
    "IA": _ia, "MR": _mr, "CS": _cs, "CP": _cp, "RP": _rp, "DP": _dp, "Route": _route,
}  # fmt: skip


def demo_items(seed: int = DEMO_SEED, per_subtask: int = ITEMS_PER_SUBTASK) -> list[DemoItem]:
    out: list[DemoItem] = []
    for code in SUBTASKS:
        for n in range(per_subtask):
            rng = random.Random(f"{seed}/{code}/{n}")
            question, kind, answer, hint, options, pngs = GENERATORS[code](rng, n)
            item_id = f"demo-{code.lower()}-{n:02d}"
            names = {f"{item_id}/{k}.png": png for k, png in enumerate(pngs)}
            item = Item(
                id=item_id,
                dimension=DIMENSION_OF[code],
                subtask=code,
                type=ItemType(kind),
                question=question,
                answer=answer,
                images=tuple(names),
                options=options,
                answer_hint=hint,
            )
            out.append(DemoItem(item, names))
    return out


def oracle_predictions(items: list[Item]) -> list[Prediction]:
    """Repeats the ground truth: the rule judge alone scores it 100%."""
    return [Prediction(item.id, item.answer) for item in items]


def random_predictions(items: list[Item], seed: int = DEMO_SEED) -> list[Prediction]:
    """A seeded guesser: a random option letter, or for open items a plausible but unverified answer."""
    rng = random.Random(f"{seed}/random-model")
    out = []
    for item in items:
        if item.type is ItemType.SINGLE_CHOICE:
            out.append(Prediction(item.id, rng.choice(sorted(item.options or {"A": ""}))))
        elif item.answer.isdigit():
            out.append(Prediction(item.id, str(rng.randint(0, 6))))
        elif item.answer in ("yes", "no"):
            out.append(Prediction(item.id, rng.choice(["yes", "no"])))
        else:
            # Free text the rule judge cannot settle: these wait for the LLM judge or a person.
            out.append(Prediction(item.id, f"I think it is {rng.choice(list(COLOURS) + ROOMS)}"))
    return out
