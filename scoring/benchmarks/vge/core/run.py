"""VGEBench's protocol for the hub's runner (`BenchmarkPlugin.runner`; scoring.core.runner): the paper's ReAct loop
played through the hub's agent API (simulator/api.py), the same calls from the command line and the hub's worker.

Each turn the model is shown the observation as the paper describes it: the current view's image, the accessible
views, the feedback on its previous action and the current instruction; and its past turns (`history`: all of them
by default, or the last 0 or 3 ...), each as the observation's text and the model's reply. It answers with its
thinking and one action in the paper's grammar; that reply is sent to the agent API as the turn's output. The
episode runs until the API says it is over (all goals reached or a budget spent); the outputs are the task's
`vge-log/1` line. The system prompt's words are OURS: the paper describes the loop and the grammar, not its text.

Resuming: turn t of repeat r of a task is the request "r<r>/<task>#<t>"; a unit played again starts a new episode
and replays the stored replies (the engine is deterministic, so the observations come back the same) before asking
the model for the first turn it has no reply for. Pure.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

import cv2
import numpy as np

from scoring.core.runner import Context, ModelFailed, RunError, RunOption, Unit, image_part

from .episode_options import (
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
    PERTURBATION_OPTION,
    episode_history,
    episode_instruction,
)
from .perturb import PerturbationInvalid, parse
from .rephrase import STYLES
from .task_defs import LAMBDA_OPTION, episode_lambda

ACT_OUTPUT_MAX = 20000  # the agent API's limit on one output (simulator/serializers.py)
MAX_TURNS = 2000  # a guard far above any budget: the API ends episodes first

SYSTEM_PROMPT = """You operate an unfamiliar household device that you see through one camera view at a time. \
You have no manual: find out how the device works by acting on its parts and reading the feedback.
Each turn you are shown the current view's image, the views you can switch to, the feedback on your previous action \
and your current instruction. Coordinates are integers from 0 to 1000 over the image: x from the left, y from the top.
Actions:
- Press(coord=[x, y], params=[p]): p 0 click, 1 long press, 2 double click
- Rotate(coord=[x, y], params=[direction, extent]): direction 0 clockwise, 1 counter-clockwise; extent in detents
- Push(coord=[x, y], params=[d]): d 0 up, 1 down, 2 left, 3 right, 4 in
- Pull(coord=[x, y], params=[d]): d 0 up, 1 down, 2 left, 3 right, 4 out
- Grasp(coord=[x, y])
- Timed_wait(): let time pass
- Switch_view(params=[view]): go to one of the accessible views
Physical actions are not possible on axonometric (three-quarter) views. Reply in this form:
Thinking: <your reasoning>
Action: <one action>"""


def observation_text(obs: Mapping[str, Any], feedback: str | None) -> str:
    views = ", ".join(str(v) for v in obs.get("accessible_views") or ())
    return "\n".join([
        f"Turn: {obs.get('turn') or 0}",
        f"Instruction: {obs.get('instruction') or ''}",
        f"Current view: {obs.get('view') or ''}",
        f"Accessible views: {views}",
        f"Feedback on your previous action: {feedback if feedback is not None else '(none yet: this is the first turn)'}",
    ])


class VgeProtocol:
    options = (
        RunOption(HISTORY_OPTION, "past turns shown each turn: full (default, the paper's) or a number (0, 3, ...)",
                  "full"),
        RunOption(LAMBDA_OPTION, "the interaction budget λ (default: each task's own, 5 unless it sets one)", None),
        RunOption(PERTURBATION_OPTION, "blur:σ, jpeg:q or occlude:share on every view shown (default none)", ""),
        RunOption(INSTRUCTION_OPTION, "how goals are worded: " + ", ".join(STYLES), STYLES[0], STYLES),
    )
    uses_agent = True
    file_suffix = ".jsonl"

    def check_options(self, options: Mapping[str, Any], *, model: str) -> dict[str, Any]:
        unknown = sorted(set(options) - {o.name for o in self.options})
        if unknown:
            raise RunError(f"unknown option {unknown[0]!r} (VGEBench takes {', '.join(o.name for o in self.options)})")
        try:
            history = episode_history(options.get(HISTORY_OPTION))
            lam = None if options.get(LAMBDA_OPTION) in (None, "") else episode_lambda(options[LAMBDA_OPTION])
            instruction = episode_instruction(options.get(INSTRUCTION_OPTION))
            perturbation = parse(str(options.get(PERTURBATION_OPTION) or "") or None)
        except (ValueError, PerturbationInvalid) as exc:
            raise RunError(str(exc)) from None
        return {HISTORY_OPTION: "full" if history is None else history, LAMBDA_OPTION: lam,
                PERTURBATION_OPTION: perturbation.text() if perturbation else "", INSTRUCTION_OPTION: instruction}

    def request_extra(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def episode_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        out = {HISTORY_OPTION: options[HISTORY_OPTION], PERTURBATION_OPTION: options[PERTURBATION_OPTION],
               INSTRUCTION_OPTION: options[INSTRUCTION_OPTION]}
        if options.get(LAMBDA_OPTION) is not None:
            out[LAMBDA_OPTION] = options[LAMBDA_OPTION]
        return out

    def play(self, unit: Unit, ctx: Context) -> dict[str, Any]:
        if ctx.agent is None:
            raise RunError("VGEBench is played through the hub's agent API: give its URL and an API token")
        history = episode_history(ctx.options.get(HISTORY_OPTION))
        obs = ctx.agent.start(unit.record.key, self.episode_options(ctx.options))
        episode = int(obs["episode"])
        past: list[tuple[str, str]] = []  # (observation text, reply) of each turn played
        outputs: list[str] = []
        feedback: str | None = None
        for turn in range(MAX_TURNS):
            if obs.get("done"):
                break
            if ctx.stop():
                raise ModelFailed("stopped")
            text = observation_text(obs, feedback)
            shown = past if history is None else past[max(0, len(past) - history):] if history else []
            messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
            for seen, reply in shown:
                messages += [{"role": "user", "content": seen}, {"role": "assistant", "content": reply}]
            key = unit.request_key(turn)
            if ctx.store.get(key) is None:  # the image is fetched only when the model is asked
                image = image_part("view.png", ctx.agent.image(str(obs["image_url"])))
                messages.append({"role": "user", "content": [image, {"type": "text", "text": text}]})
            else:
                messages.append({"role": "user", "content": text})
            output = ctx.ask(key, messages).content[:ACT_OUTPUT_MAX]
            result = ctx.agent.act(episode, output)
            outputs.append(output)
            past.append((text, output))
            feedback = str((result.get("feedback") or {}).get("text") or "")
            obs = dict(result.get("observation") or {})
            obs["done"] = bool(result.get("done") or obs.get("done"))
        return {"task": unit.record.key, "outputs": outputs}

    def upload_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in self.episode_options(options).items() if v not in ("", None)}


PROTOCOL = VgeProtocol()


# -- the stand-in model's VGE player (scoring/standin.py): a heuristic that sees the image only --

_KEYWORDS = (
    (("wait", "let it", "until"), "Timed_wait()"),
    (("turn the", "rotate", "set the", "dial", "knob"), "Rotate(coord=[{x}, {y}], params=[0, 1])"),
    (("open", "pull", "take out"), "Pull(coord=[{x}, {y}], params=[4])"),
    (("close", "push", "insert"), "Push(coord=[{x}, {y}], params=[4])"),
)


def visible_boxes(png: bytes) -> list[tuple[int, int, int, int]]:
    """Boxes (0..1000) of the parts drawn on a view image: outlined shapes found by edge detection, smallest first
    (a control inside the body before the body). What the stand-in agent clicks; it never reads a device file."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    if image is None:
        return []
    height, width = image.shape
    edges = cv2.Canny(image, 40, 120)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes = set()
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if 6 <= w <= width * 0.6 and 6 <= h <= height * 0.6:
            boxes.add((x * 1000 // width, y * 1000 // height, (x + w) * 1000 // width, (y + h) * 1000 // height))
    ordered = sorted(boxes, key=lambda b: ((b[2] - b[0]) * (b[3] - b[1]), b[1], b[0]))
    distinct: list[tuple[int, int, int, int]] = []
    for box in ordered:  # boxes whose centres nearly coincide are one part
        cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
        if all(abs(cx - (b[0] + b[2]) // 2) > 15 or abs(cy - (b[1] + b[3]) // 2) > 15 for b in distinct):
            distinct.append(box)
    return distinct[:24]


def standin_reply(instruction: str, views: list[str], view: str, turn: int, png: bytes | None) -> str:
    """The heuristic's reply: the action the instruction's words suggest (press by default), on the visible part
    this turn's number picks; once every part has been tried, the next accessible view."""
    boxes = visible_boxes(png) if png else []
    words = instruction.lower()
    template = next((action for keys, action in _KEYWORDS if any(k in words for k in keys)),
                    "Press(coord=[{x}, {y}], params=[0])")
    rounds = max(1, len(boxes))
    if template == "Timed_wait()" and turn % 2 == 0:
        return "Thinking: the instruction says to wait. Action: Timed_wait()"
    if not boxes or (turn // rounds) % 2 == 1:
        others = [v for v in views if v != view]
        if others:
            target = others[(turn // rounds) % len(others)]
            return f"Thinking: nothing more to try here; look from {target}. Action: Switch_view(params=[\"{target}\"])"
    box = boxes[turn % rounds] if boxes else (400, 400, 600, 600)
    x, y = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    return f"Thinking: try the part at ({x}, {y}). Action: " + template.format(x=x, y=y)


_FIELD = re.compile(r"^(Turn|Instruction|Current view|Accessible views): ?(.*)$", re.M)


def standin(request: Mapping[str, Any], images: list[bytes]) -> str | None:
    """The stand-in's reply to a VGE turn (its system prompt is this protocol's), else None."""
    messages = request.get("messages") or []
    if not messages or messages[0].get("content") != SYSTEM_PROMPT:
        return None
    last = messages[-1].get("content")
    text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last if isinstance(p, dict))
    fields = dict(_FIELD.findall(text))
    turn = int(fields.get("Turn", "0") or 0) if fields.get("Turn", "0").isdigit() else 0
    views = [v.strip() for v in fields.get("Accessible views", "").split(",") if v.strip()]
    return standin_reply(fields.get("Instruction", ""), views, fields.get("Current view", ""),
                         turn, images[-1] if images else None)
