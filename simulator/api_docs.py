"""What /api/docs/ says about the VGE agent API: each operation's summary, description and examples, and the part of
the schema's description that introduces the agent API (its quick start and the action grammar). The grammar comes
from the VGE core's one table (scoring/benchmarks/vge/core/grammar.py) and the quick start from its one text
(core/quickstart.py), so these pages cannot drift from the engine or from the VGE format page."""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from scoring.benchmarks.vge.core.grammar import grammar_markdown
from scoring.benchmarks.vge.core.quickstart import QUICKSTART, QUICKSTART_INTRO
from simulator.serializers import ACT_BATCH_MAX, TASKS_PAGE_MAX, TASKS_PAGE_SIZE

TAG = "VGE agent API"

AGENT_API_INTRO = (
    "An agent operates a household device it has never seen, one view at a time: list the tasks "
    "(`GET /api/vge/tasks/`), start an episode (`POST /api/vge/episodes/`), then send the model's text each turn "
    "(`POST /api/vge/episodes/{id}/act/`) and read the `feedback` and the next `observation` until `done`; the view's "
    "image is at the observation's `image_url`. Every call but the task list needs your API token "
    "(`Authorization: Token <key>`). The same calls run over one websocket per harness, `ws/vge/agent/` "
    "(`reset`, `step`, `state` messages with the same bodies).")


def agent_api_description() -> str:
    """The agent API's part of the schema's description (Markdown): intro, quick start, action grammar."""
    return "\n\n".join([
        "## VGE agent API", AGENT_API_INTRO,
        "### Quick start", QUICKSTART_INTRO, f"```python\n{QUICKSTART}```",
        "### Actions (the `output` of a turn)", grammar_markdown(),
    ])


def schema_with_agent_api(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS): the agent API's introduction added to the
    schema's description."""
    info = result.setdefault("info", {})
    info["description"] = "\n\n".join(filter(None, [info.get("description", ""), agent_api_description()]))
    return result


EPISODE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH,
                              description="The episode's id: `episode` in the answer of POST /api/vge/episodes/.")
_OVER = OpenApiExample("The episode is over", response_only=True, status_codes=["409"],
                       value={"detail": "The episode is over; start a new one."})
_SOMEONE_ELSES = OpenApiExample("Someone else's episode", response_only=True, status_codes=["403"],
                                value={"detail": "This episode belongs to someone else."})

_OBSERVATION = {
    "episode": 412, "turn": 0, "view": "front", "image_url": "/api/vge/episodes/412/view.png?turn=0",
    "accessible_views": ["front", "back", "left", "right", "top", "bottom", "front_top", "back_bottom"],
    "instruction": "Turn the microwave on.", "goal_index": 0, "goals_total": 2,
    "budgets": {"global": 20, "local": 10}, "budgets_max": {"global": 20, "local": 10}, "done": False,
    "success": False,
}
_AFTER_PRESS = {**_OBSERVATION, "turn": 1, "image_url": "/api/vge/episodes/412/view.png?turn=1",
                "instruction": "Start heating.", "goal_index": 1, "budgets": {"global": 19, "local": 10}}
_TASK_PUBLIC = {
    "id": "microwave-0007/t3", "device": "microwave-0007", "category": "Microwave",
    "split": {"name": "demo", "version": 1, "hidden_ground_truth": False},
    "instruction": "Turn the microwave on.", "start_view": "front", "goals": 2, "shortest": 4, "lambda": 5,
    "play_url": "/simulator/play/microwave-0007/t3/",
}
_TASK_HIDDEN = {
    "id": "kettle-0102/t1", "device": "kettle-0102", "category": "Kettle",
    "split": {"name": "test", "version": 1, "hidden_ground_truth": True},
    "instruction": "Boil the water.", "start_view": "front", "goals": None, "shortest": None, "lambda": None,
    "play_url": "/simulator/play/kettle-0102/t1/",
}

TASKS = {
    "summary": "List the tasks you may play",
    "description": (
        f"Every task an episode may be started on, {TASKS_PAGE_SIZE} a page (`page_size` up to {TASKS_PAGE_MAX}), "
        "ordered by device category, device and id, filtered by `split`, `category` and `device`. Each says what a "
        "player sees when an episode starts (the first instruction, the start view) and its split; on a split whose "
        "ground truth you may see (public splits; hidden ones for curators) also the number of goals, the fewest "
        "turns that reach them all (L_opt) and λ, which a hidden split keeps (null). No token needed."),
    "examples": [OpenApiExample("A page of tasks", response_only=True, status_codes=["200"], value={
        "count": 207, "next": "https://hub.example/api/vge/tasks/?page=2", "previous": None,
        "results": [_TASK_PUBLIC, _TASK_HIDDEN]})],
}

START = {
    "summary": "Start an episode",
    "description": (
        "A new episode of a task, yours: the answer is its id (`episode`) and the first observation (also repeated "
        "at the top level). Options: `lambda` (the interaction budget λ, 1..10; default the task's own), "
        "`perturbation` (blur:σ, jpeg:q, occlude:share on every view served), `history` (how many past turns the "
        "episode's trace shows while it runs) and `instruction` (`rephrased`: every goal worded in a second style). "
        "Bundle episodes played with the same options into a submission with POST /api/vge/submissions/."),
    "examples": [
        OpenApiExample("A task with its defaults", request_only=True, value={"task": "microwave-0007/t3"}),
        OpenApiExample("With episode options", request_only=True,
                       value={"task": "microwave-0007/t3", "lambda": 3, "perturbation": "blur:2", "history": 5,
                              "instruction": "rephrased"}),
        OpenApiExample("The first observation", response_only=True, status_codes=["201"],
                       value={**_OBSERVATION, "observation": _OBSERVATION}),
        OpenApiExample("A bad option", response_only=True, status_codes=["400"], value={
            "detail": "Invalid request.", "errors": {"lambda": ["Ensure this value is less than or equal to 10."]}}),
        OpenApiExample("No such task", response_only=True, status_codes=["404"],
                       value={"detail": "Unknown task 'microwave-9999/t1'."}),
    ],
}

ACT = {
    "summary": "Play one turn",
    "description": (
        "Send the model's text for this turn: the engine reads the action out of it (the grammar below and in the "
        "schema's description), plays it, and answers the device's `feedback` and the next `observation`. Every turn "
        "costs one from both budgets, an invalid one too; the episode ends when every goal is reached (`success`) "
        "or a budget is spent. A finished episode answers 409.\n\n" + grammar_markdown()),
    "examples": [
        OpenApiExample("A model's text with its action", request_only=True,
                       value={"output": "Thinking: the round button on the right should power it on.\n"
                                        "Action: Press(coord=[730, 180], params=[0])"}),
        OpenApiExample("A dial, two clicks clockwise", request_only=True,
                       value={"output": "Action: Rotate(coord=[640, 410], params=[0, 2])"}),
        OpenApiExample("Pull a door out", request_only=True,
                       value={"output": "Action: Pull(coord=[300, 500], params=[4])"}),
        OpenApiExample("Look from the left", request_only=True, value={"output": "Action: Switch_view(params=[left])"}),
        OpenApiExample("A goal reached", response_only=True, status_codes=["200"], value={
            "feedback": {"kind": "success", "text": "The display lights up. The microwave is on. (Goal reached.)",
                         "action": "Press(coord=[730, 180], params=[0])", "goal_reached": True},
            "observation": _AFTER_PRESS, "done": False}),
        OpenApiExample("Nothing at that point", response_only=True, status_codes=["200"], value={
            "feedback": {"kind": "no_effect", "text": "Nothing happened.", "action": "Press(coord=[40, 40], params=[0])",
                         "goal_reached": False},
            "observation": {**_OBSERVATION, "turn": 1, "budgets": {"global": 19, "local": 9}}, "done": False}),
        OpenApiExample("No action in the text", response_only=True, status_codes=["200"], value={
            "feedback": {"kind": "invalid", "text": "Invalid action: no action found (expected e.g. Action: "
                                                    "Press(coord=[x, y], params=[0]))", "action": None,
                         "goal_reached": False},
            "observation": {**_OBSERVATION, "turn": 1, "budgets": {"global": 19, "local": 9}}, "done": False}),
        _OVER, _SOMEONE_ELSES,
    ],
}

ACT_BATCH = {
    "summary": "Play one turn in each of several episodes",
    "description": (
        f"For harnesses that run many episodes at once: up to {ACT_BATCH_MAX} actions, at most one per episode, each "
        "played exactly as by its one-action call (its own transaction) and answered independently, in order, with "
        "the status that call would have given: one refused action does not stop the others."),
    "examples": [
        OpenApiExample("Two episodes", request_only=True, value={"actions": [
            {"episode": 412, "output": "Action: Press(coord=[730, 180], params=[0])"},
            {"episode": 413, "output": "Action: Timed_wait()"}]}),
        OpenApiExample("One played, one over", response_only=True, status_codes=["200"], value={"results": [
            {"episode": 412, "status": 200, "feedback": {"kind": "success", "text": "The display lights up.",
                                                         "action": "Press(coord=[730, 180], params=[0])",
                                                         "goal_reached": False},
             "observation": _AFTER_PRESS, "done": False},
            {"episode": 413, "status": 409, "detail": "The episode is over; start a new one."}]}),
    ],
}

DETAIL = {
    "summary": "Read an episode back",
    "description": (
        "Your episode (or, for staff, anyone's): its options, the current observation and the trace of the turns "
        "played, and once it is over its metrics. While it runs the trace names no states and holds only the last "
        "`history` turns; on a task of a hidden split it stays so, and λ is left out unless the episode chose one. "
        "How a harness whose connection dropped resumes: read the episode, go on acting."),
    "examples": [OpenApiExample("A running episode", response_only=True, status_codes=["200"], value={
        "id": 412, "task": "microwave-0007/t3", "kind": "agent", "finished": False, "success": False, "metrics": {},
        "perturbation": "", "lambda": 5, "history": "full", "instruction": "original", "observation": _AFTER_PRESS,
        "trace": [{"turn": 1, "raw_output": "Action: Press(coord=[730, 180], params=[0])",
                   "action_text": "Press(coord=[730, 180], params=[0])", "turn_class": "physical",
                   "kind": "success", "feedback": "The display lights up. The microwave is on. (Goal reached.)",
                   "view_before": "front", "view_after": "front", "global_left": 19, "local_left": 10,
                   "done": False, "success": False, "goal_reached": True, "coord": [730, 180]}]}),
        _SOMEONE_ELSES],
}

VIEW = {
    "summary": "The view's image",
    "description": (
        "The PNG the agent sees now, or after turn `turn` (0: the start). Coordinates of actions are on this image, "
        "0..1000 on both axes from the top-left corner, whatever its size in pixels. A perturbed episode gets its "
        "perturbed image."),
}

BUNDLE = {
    "summary": "Submit your finished episodes",
    "description": (
        "Bundles your finished agent episodes on a split's tasks, played with exactly the options given (the latest "
        "per task), into a `vge-log/1` submission for a model entry, scored like an upload: a task without an "
        "episode counts as failed. Counts against the split's daily quota."),
    "examples": [
        OpenApiExample("The demo split", request_only=True, value={"model": "My-Agent", "split": "demo"}),
        OpenApiExample("Queued", response_only=True, status_codes=["201"],
                       value={"submission": 88, "status": "queued", "url": "/api/submissions/88/"}),
    ],
}
