"""EPIC-Bench's protocol for the hub's runner (`BenchmarkPlugin.runner`; scoring.core.runner): each sample asked
once per repeat with the paper's prompts for its task type (prompts.py: the system message and the user message,
whose ` <image> ` placeholders become the sample's images in order), the answer written as a raw response line
(`{"key", "images", "response"}`) scored with the raw option and the model family's coordinate system. Pure.
"""
from __future__ import annotations

from typing import Any, Mapping

from scoring.core.runner import Context, RunError, RunOption, Unit, interleave, sample_images

from .example import example_response
from .fields import AUTO, COORDINATE_SYSTEMS, FAMILY_COORDINATES, family_coordinates, model_family
from .prompts import IMAGE_PLACEHOLDER, prompt_task, record_prompt, task_prompts
from .taxonomy import LEAF_BY_NAME

THINKING_CHOICES = ("default", "on", "off")


class EpicProtocol:
    options = (
        RunOption("coord_mode", "the coordinate system the model answers in: " + ", ".join(COORDINATE_SYSTEMS)
                  + " (auto: the model family's, " + ", ".join(f"{f} {m}" for f, m in FAMILY_COORDINATES)
                  + ", else detected per sample)", AUTO, COORDINATE_SYSTEMS),
        RunOption("thinking", "thinking mode: default (the endpoint's), on or off (sent as chat_template_kwargs."
                  "enable_thinking, as vLLM and SGLang read it)", "default", THINKING_CHOICES),
    )
    uses_agent = False
    file_suffix = ".jsonl"

    def check_options(self, options: Mapping[str, Any], *, model: str) -> dict[str, Any]:
        unknown = sorted(set(options) - {o.name for o in self.options})
        if unknown:
            raise RunError(f"unknown option {unknown[0]!r} (EPIC-Bench takes {', '.join(o.name for o in self.options)})")
        coord = str(options.get("coord_mode") or AUTO)
        if coord not in COORDINATE_SYSTEMS:
            raise RunError(f"coord_mode must be one of {', '.join(COORDINATE_SYSTEMS)}, not {coord!r}")
        if coord == AUTO:
            coord = family_coordinates(model_family(model)) or AUTO
        thinking = str(options.get("thinking") or "default")
        if thinking not in THINKING_CHOICES:
            raise RunError(f"thinking must be one of {', '.join(THINKING_CHOICES)}, not {thinking!r}")
        return {"coord_mode": coord, "thinking": thinking}

    def request_extra(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if options.get("thinking") in ("on", "off"):
            return {"chat_template_kwargs": {"enable_thinking": options["thinking"] == "on"}}
        return {}

    def play(self, unit: Unit, ctx: Context) -> dict[str, Any]:
        found = record_prompt(unit.record)
        if found is None:
            raise RunError(f"sample {unit.record.key}: task {unit.record.task!r} is no EPIC-Bench task")
        images = sample_images(ctx, unit.record, found["images"])
        messages = [{"role": "system", "content": found["system"]},
                    {"role": "user", "content": interleave(found["user"], images, placeholder=IMAGE_PLACEHOLDER.strip())}]
        answer = ctx.ask(unit.request_key(), messages)
        return {"key": unit.record.key, "images": found["images"], "response": answer.content}

    def upload_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        coord = options.get("coord_mode") or AUTO
        return {"raw": True, **({"coord_mode": coord} if coord != AUTO else {})}


PROTOCOL = EpicProtocol()


# -- the stand-in model's EPIC answers (scoring/standin.py) --

def _leaf_of_system(system: str) -> Any:
    for leaf in LEAF_BY_NAME.values():
        if task_prompts()[prompt_task(leaf)].system_message == system:
            return leaf
    return None


def standin(request: Mapping[str, Any], images: list[bytes]) -> str | None:
    """A deterministic answer in the task's response format (one made-up box or path) to a request made with one
    of the paper's system messages, else None."""
    messages = request.get("messages") or []
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    leaf = _leaf_of_system(system) if isinstance(system, str) else None
    return None if leaf is None else example_response(leaf.category, leaf.name)
