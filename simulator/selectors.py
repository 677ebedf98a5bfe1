"""Reads for VGE: device definitions for the scorer, episode traces, task lists."""
from __future__ import annotations

from typing import Any, Iterable

from django.db.models import Count, Q

from accounts.roles import is_curator
from scoring import access
from scoring.benchmarks import plugin_for
from scoring.benchmarks.vge.core.engine import EpisodeState
from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_FULL,
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
)
from scoring.benchmarks.vge.core.grammar import feedback_text
from scoring.benchmarks.vge.core.rephrase import rephrased_instructions
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA, LAMBDA_OPTION
from scoring.benchmarks.vge.plugin import SLUG as VGE_SLUG
from scoring.core.disclosure import disclosed
from scoring.models import SampleScore, Submission
from scoring.selectors import split_phase_open_q
from simulator.engines import (
    EpisodeError,
    engine_for,
    engine_with_task,
    episode_player_check,
    episode_reach_check,
    observation,
)
from simulator.human_board import HUMAN_ENTRY_SLUG
from simulator.models import Device, Episode, PlayerChoice, Task
from simulator.playtests import PLAYTEST_SOURCE, hidden_playtests_q


def device_definitions(*, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    return dict(Device.objects.filter(device_id__in=list(ids)).values_list("device_id", "definition"))


def episode_trace(*, episode: Episode) -> list[dict[str, Any]]:
    """The stored outcomes, in turn order (what the agent saw and what the engine did)."""
    return list(episode.steps.order_by("index").values_list("outcome", flat=True))


# -- browser play and replay ----------------------------------------------------------------------
# What a player or an agent sees of a past step while the episode runs: no state or component names.
PUBLIC_STEP_KEYS = ("turn", "raw_output", "action_text", "turn_class", "kind", "feedback", "view_before",
                    "view_after", "global_left", "local_left", "done", "success")


def step_shown(outcome: dict[str, Any]) -> dict[str, Any]:
    """A stored step as a player or agent reads it back: its feedback text a sentence, or left out when the device
    said nothing (grammar.feedback_text; the stored step keeps the engine's text, the paper's "null")."""
    step = dict(outcome)
    text = feedback_text(step.pop("feedback", None))
    if text is not None:
        step["feedback"] = text
    return step


def public_step(outcome: dict[str, Any]) -> dict[str, Any]:
    step = step_shown({k: outcome.get(k) for k in PUBLIC_STEP_KEYS})
    step["goal_reached"] = bool(outcome.get("goal_reached"))  # it holds a state name: say only whether one was
    action = outcome.get("action") or {}
    step["coord"] = action.get("coord")
    return step


def play_state(*, episode_id: int, user, guest_episodes: list[int] | None = None) -> dict[str, Any]:
    """Everything the play page needs to (re)draw an episode: observation, budget maxima, the feedback log, and
    once it is over its metrics (on a task of a hidden split only those the VGE plugin allows: no l_opt).
    `guest_episodes`: the practice episodes this browser started without an account (engines.guest_episode_ids)."""
    if (user is None or not user.is_authenticated) and not guest_episodes:
        raise EpisodeError("Sign in to play.", status=401)
    episode = Episode.objects.select_related("task__device", "task__sample__split").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    episode_player_check(episode, user, list(guest_episodes or ()))
    engine, _ = engine_with_task(episode.task)
    state = EpisodeState.from_dict(episode.state)
    split = _split_of(episode.task)
    keys = access.sample_detail_keys(split=split, user=user, plugin=plugin_for(VGE_SLUG))
    return {
        "type": "state",
        "task": episode.task.task_id,
        "kind": episode.kind,
        "finished": episode.finished,
        "gave_up": episode.gave_up,
        "success": episode.success,
        "options": episode_options_shown(episode, hidden=keys is not None),
        "metrics": disclosed(episode.metrics, keys) if episode.finished else {},
        "result": result_figures(disclosed(episode.metrics, keys), goals_total=episode.task.goals_count)
        if episode.finished else [],
        "observation": observation(episode=episode, engine=engine, state=state),
        "log": [public_step(o) for o in episode_trace(episode=episode)],
    }


def _figure(value: Any) -> str:
    return f"{value:.1f}".removesuffix(".0") if isinstance(value, float) else str(value)


def result_figures(metrics: dict[str, Any], *, goals_total: int) -> list[tuple[str, str]]:
    """The figures of a finished episode as its result box shows them (issue 32: the box explained SR without showing
    the episode's own): SR, SPL, State-F1, the turns (and the fewest possible, where the viewer may see l_opt) and the
    goals reached of all. `metrics`: the episode's metrics as disclosed to this viewer."""
    out = [(name, _figure(metrics[name])) for name in ("SR", "SPL", "State-F1") if metrics.get(name) is not None]
    if metrics.get("turns") is not None:
        shortest = f" (shortest possible: {metrics['l_opt']})" if metrics.get("l_opt") is not None else ""
        out.append(("Turns", f"{metrics['turns']}{shortest}"))
    if metrics.get("goals_reached") is not None:
        out.append(("Goals reached", f"{metrics['goals_reached']} of {goals_total}"))
    return out


def episode_result_shown(episode: Episode, *, user) -> list[tuple[str, str]]:
    """The result box of a finished episode for this viewer (none while it runs)."""
    if not episode.finished:
        return []
    keys = access.sample_detail_keys(split=_split_of(episode.task), user=user, plugin=plugin_for(VGE_SLUG))
    return result_figures(disclosed(episode.metrics, keys), goals_total=episode.task.goals_count)


def episode_options_shown(episode: Episode, *, hidden: bool) -> dict[str, Any]:
    """The options a player's page shows: λ (unless it is the task's own λ on a hidden split, where λ with the
    budgets would give the optimal cost away), whether it is the task's, and the instruction style."""
    shown: dict[str, Any] = {"lambda_own": episode.lam is None, INSTRUCTION_OPTION: episode.instruction}
    if not hidden or episode.lam is not None:
        shown[LAMBDA_OPTION] = episode.played_lambda
    return shown


def _split_of(task: Task):
    return task.sample.split if task.sample_id else None


def replay_episode(*, episode_id: int, user) -> dict[str, Any]:
    """A finished episode, step by step, with states (owner, curators, or anyone when its split is public)."""
    episode = Episode.objects.select_related("task__device", "task__sample__split", "owner").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    episode_reach_check(episode, user)
    split = _split_of(episode.task)
    if not access.episode_replay_visible_to(split=split, owner_id=episode.owner_id, user=user):
        raise EpisodeError("This episode is visible to its player and to curators only.", status=403)
    if not episode.finished:
        raise EpisodeError("This episode is still running: it can be replayed once it is over.", status=409)
    who = player_name_shown(episode, viewer=user)
    return _replay(
        title=f"Episode {episode.pk}", subtitle=f"{episode.get_kind_display()} · {who}",
        task=task_as_worded(episode.task.definition, episode.instruction), trace=episode_trace(episode=episode),
        image_base=f"/simulator/replay/episode/{episode.pk}/view/", metrics=episode.metrics,
        outcome="gave up" if episode.gave_up else ("success" if episode.success else "failed"),
        device_row=episode.task.device,
        options=options_words(lam=episode.played_lambda, own=episode.lam is None, perturbation=episode.perturbation,
                              history=episode.history_shown, instruction=episode.instruction),
    )


ANONYMOUS_PLAYER = "a player"


def player_name_shown(episode: Episode, *, viewer) -> str:
    """Who played an episode, as this viewer may see it: an agent episode's owner as ever; a human episode's player
    by name to themselves, to curators, and to everyone only when the player chose so (PlayerChoice), else
    "a player" (issue 32)."""
    if episode.owner is None:
        return "anonymous"
    if episode.kind != Episode.Kind.HUMAN:
        return episode.owner.get_username()
    own = viewer is not None and viewer.is_authenticated and viewer.pk == episode.owner_id
    chosen = PlayerChoice.objects.filter(user_id=episode.owner_id, name_on_replays=True).exists()
    return episode.owner.get_username() if own or chosen or is_curator(viewer) else ANONYMOUS_PLAYER


def player_replay_name_chosen(*, user) -> bool:
    """Whether this player chose to show their name on their replays (False: the default)."""
    return bool(user is not None and user.is_authenticated
                and PlayerChoice.objects.filter(user_id=user.pk, name_on_replays=True).exists())


def replay_submission(*, submission_id: int, index: int, user) -> dict[str, Any]:
    """One episode of a scored VGE submission (its SampleScore trace), under the drill-down's access rule."""
    submission = (
        Submission.objects.select_related("split__benchmark", "model_entry")
        .filter(pk=submission_id, status=Submission.Status.SCORED, source=Submission.Source.UPLOAD,
                split__benchmark__slug=VGE_SLUG).first()
    )
    if submission is None:
        raise EpisodeError(f"No scored VGE submission {submission_id}.", status=404)
    if not access.submission_public_to(submission=submission, user=user):
        raise EpisodeError(f"No scored VGE submission {submission_id}.", status=404)  # private: as if none
    if not access.sample_results_visible_to(submission=submission, user=user):
        raise EpisodeError("Episodes of a hidden split are shown to the submitter and curators only.", status=403)
    row = SampleScore.objects.filter(submission=submission, index=index).first()
    if row is None or "task" not in row.details:
        raise EpisodeError(f"Submission {submission_id} has no episode {index}.", status=404)
    device_row = Device.objects.filter(device_id=row.details["task"].get("device")).first()
    if device_row is None:
        raise EpisodeError("The device of this episode is no longer stored.", status=404)
    return _replay(
        title=f"{submission.model_entry.name} · episode {index}", subtitle=f"submission #{submission.pk} on {submission.split}",
        task=task_as_worded(row.details["task"], str(row.details.get(INSTRUCTION_OPTION) or DEFAULT_INSTRUCTION)),
        trace=row.details.get("trace") or [],
        image_base=f"/simulator/replay/submission/{submission.pk}/{index}/view/", metrics=row.components,
        outcome=row.outcome, device_row=device_row,
        options=options_words(lam=row.details.get("lambda") or row.details["task"].get("lambda", DEFAULT_LAMBDA),
                              own=submission.options.get(LAMBDA_OPTION) in (None, ""),
                              perturbation=str(submission.options.get("perturbation") or ""),
                              history=str(row.details.get(HISTORY_OPTION) or HISTORY_FULL),
                              instruction=str(row.details.get(INSTRUCTION_OPTION) or DEFAULT_INSTRUCTION)),
    )


def options_words(*, lam: float, own: bool, perturbation: str = "", history: str = HISTORY_FULL,
                  instruction: str = DEFAULT_INSTRUCTION) -> str:
    """How an episode was played, for its rows and pages: "λ = 3", "λ = 5 (the task's) · blur:2 · history 3 ·
    rephrased instructions"."""
    words = [f"λ = {lam:g}" + (" (the task's)" if own else "")]
    if perturbation:
        words.append(perturbation)
    if history != HISTORY_FULL:
        words.append(f"history {history}")
    if instruction != DEFAULT_INSTRUCTION:
        words.append(f"{instruction} instructions")
    return " · ".join(words)


def task_as_worded(task: dict[str, Any], instruction: str) -> dict[str, Any]:
    """A task definition with its instructions as an episode played with `instruction` showed them."""
    if instruction == DEFAULT_INSTRUCTION:
        return task
    worded = rephrased_instructions(task_id=str(task.get("id", "")), instructions=list(task.get("instructions") or ()))
    return {**task, "instructions": list(worded)}


def _replay(*, title: str, subtitle: str, task: dict[str, Any], trace: list[dict[str, Any]], image_base: str,
            metrics: dict[str, Any], outcome: str, device_row: Device, options: str = "") -> dict[str, Any]:
    engine = engine_for(device_row)
    start = engine.graphs.chain[task["start_state"]][0] if task.get("start_state") in engine.graphs.chain else task.get("start_state")
    frames = [{"turn": 0, "image": f"{image_base}0.png", "view": task.get("start_view"), "state": start,
               "step": None}]
    for o in trace:
        action = o.get("action") or {}
        frames.append({
            "turn": o["turn"], "image": f"{image_base}{o['turn']}.png", "view": o.get("view_after"),
            "state": o.get("state_after"),
            "step": {"action_text": o.get("action_text"), "raw_output": (o.get("raw_output") or "")[:2000],
                     "coord": action.get("coord"), "kind": o.get("kind"), "feedback": o.get("feedback"),
                     "view_before": o.get("view_before"), "state_before": o.get("state_before"),
                     "state_after": o.get("state_after"), "entered": o.get("entered") or [],
                     "goal_reached": o.get("goal_reached"), "global_left": o.get("global_left"),
                     "local_left": o.get("local_left"), "unlocked_after": o.get("unlocked_after")},
        })
    return {"title": title, "subtitle": subtitle, "task": task, "frames": frames, "metrics": metrics,
            "outcome": outcome, "device": device_row.device_id, "category": device_row.category, "options": options}


def same_task_replays(*, episode_id: int, user, limit: int = 8) -> list[dict[str, Any]]:
    """The model episodes of the same task as a finished episode, each as {label, url, hidden, replay}: agent
    episodes from the API and episodes of scored uploads (newest first, `limit` of each), only those this viewer
    may replay (the same access rules as their own replay pages)."""
    episode = Episode.objects.select_related("task__sample__split").filter(pk=episode_id).first()
    if episode is None:
        return []
    out: list[dict[str, Any]] = []
    agents = (Episode.objects.filter(task_id=episode.task_id, kind=Episode.Kind.AGENT, finished=True)
              .exclude(pk=episode.pk).select_related("owner").order_by("-pk")[:limit])
    split = _split_of(episode.task)
    for other in agents:
        try:
            replay = replay_episode(episode_id=other.pk, user=user)
        except EpisodeError:
            continue
        who = other.owner.get_username() if other.owner else "anonymous"
        defaults = other.lam is None and not other.perturbation and other.history is None \
            and other.instruction == DEFAULT_INSTRUCTION
        shown = "" if defaults else f" · {replay['options']}"
        out.append({"label": f"Agent API · episode {other.pk} ({who}){shown}", "url": f"/simulator/replay/episode/{other.pk}/",
                    "hidden": bool(split and split.hidden_ground_truth), "replay": replay})
    if episode.task.sample_id is not None:
        rows = (SampleScore.objects.filter(sample_id=episode.task.sample_id, submission__status=Submission.Status.SCORED,
                                           submission__source=Submission.Source.UPLOAD)
                .select_related("submission__model_entry", "submission__split").order_by("-submission_id")[:limit])
        for row in rows:
            try:
                replay = replay_submission(submission_id=row.submission_id, index=row.index, user=user)
            except EpisodeError:
                continue
            shown = f" · {replay['options']}" if row.submission.options else ""
            out.append({"label": f"{row.submission.model_entry.name} · upload #{row.submission_id}{shown}",
                        "url": f"/simulator/replay/submission/{row.submission_id}/{row.index}/",
                        "hidden": row.submission.split.hidden_ground_truth, "replay": replay})
    return out


def replay_image_state(*, replay: dict[str, Any], turn: int) -> tuple[str, str]:
    """(view, state) shown after `turn` of a replay."""
    frames = replay["frames"]
    if not 0 <= turn < len(frames):
        raise EpisodeError(f"There is no turn {turn}.", status=404)
    return frames[turn]["view"], frames[turn]["state"]


def baseline_overview() -> dict[str, Any]:
    """The baseline set with how often each task was played, and the Human row's submission."""
    tasks = list(
        Task.objects.filter(baseline_rank__isnull=False).select_related("device")
        .annotate(played=Count("episodes", filter=Q(episodes__kind=Episode.Kind.HUMAN, episodes__finished=True)))
        .order_by("baseline_rank")
    )
    strata: dict[tuple[str, str], int] = {}
    for t in tasks:
        key = (t.device.category, "multi-goal" if t.goals_count > 1 else "single-goal")
        strata[key] = strata.get(key, 0) + 1
    human = (Submission.objects.filter(model_entry__slug=HUMAN_ENTRY_SLUG, status=Submission.Status.SCORED)
             .select_related("score", "split__benchmark").order_by("-pk").first())
    return {"tasks": tasks, "strata": sorted(strata.items()), "human": human}


def player_baseline_progress(*, user) -> dict[str, int]:
    total = Task.objects.filter(baseline_rank__isnull=False).count()
    if user is None or not user.is_authenticated:
        return {"total": total, "played": 0}
    played = (Episode.objects.filter(owner=user, kind=Episode.Kind.HUMAN, finished=True, task__baseline_rank__isnull=False)
              .values("task_id").distinct().count())
    return {"total": total, "played": played}


def devices_with_tasks() -> list[Device]:
    """The devices the simulator's home lists: not an unpublished device installed for its author's play-test."""
    return list(Device.objects.exclude(source=PLAYTEST_SOURCE).prefetch_related("tasks__sample__split__benchmark")
                .order_by("category", "device_id"))


def task_cards(*, devices: Iterable[Device], user) -> dict[str, dict[str, Any]]:
    """What the task list shows of each task: its first instruction (given to every player at the start) and
    its difficulty, the number of goals and the fewest turns that reach them all (the shortest path). A hidden
    split's difficulty is its ground truth: `hidden` instead of the figures, for all but curators."""
    cards = {}
    for device in devices:
        for task in device.tasks.all():
            task.device = device  # already loaded: no query per task
            split = _split_of(task)
            hidden = split is not None and not access.ground_truth_visible_to(split=split, user=user)
            try:
                engine, core = engine_with_task(task)
            except ValueError:  # a stored task its device no longer accepts: listed without figures
                cards[task.task_id] = {"instruction": "", "goals": None if hidden else task.goals_count,
                                       "shortest": None, "hidden": hidden}
                continue
            instruction = core.instructions[0] if core.instructions else ""
            if hidden:
                cards[task.task_id] = {"instruction": instruction, "goals": None, "shortest": None, "hidden": True}
                continue
            shortest = engine.new_episode(core).l_opt
            cards[task.task_id] = {
                "instruction": instruction,
                "goals": len(core.goals),
                "shortest": int(shortest) if shortest != float("inf") else None,
            }
    return cards


# -- the agent API's task list ----------------------------------------------------------------------------------

def playable_tasks(*, user, split: str = "", category: str = "", device: str = ""):
    """The tasks `user` may start an episode on (every stored task `POST /api/vge/episodes/` takes from them: a
    play-test device's only for those simulator.playtests lets reach it), in a stable order (category, device, task
    id), narrowed by split name (any version; "none": tasks of no split, as the practice task), device category (any
    case) and device id; a split's tasks only while its phase is open (issue 30: "public tasks of open phases"). A
    queryset: the API pages it."""
    tasks = (Task.objects.select_related("device", "sample__split")
             .filter(Q(sample__isnull=True) | split_phase_open_q(to_split="sample__split__"))
             .filter(hidden_playtests_q(user, to_device="device__"))
             .order_by("device__category", "device__device_id", "task_id"))
    if split == "none":
        tasks = tasks.filter(sample__isnull=True)
    elif split:
        tasks = tasks.filter(sample__split__name=split)
    if category:
        tasks = tasks.filter(device__category__iexact=category)
    if device:
        tasks = tasks.filter(device__device_id=device)
    return tasks


def task_listed(task: Task, *, user) -> dict[str, Any]:
    """One task as the task list shows it to this viewer: what a player sees when an episode starts (the first
    instruction, the start view, its split), and on a split whose ground truth the viewer may see (scoring.access:
    a public split for anyone, a hidden one for curators) the goals' count, the fewest turns that reach them all and
    the interaction budget λ; on a hidden split these are null (with the budgets λ would give the optimal cost away)."""
    split = _split_of(task)
    visible = split is None or access.ground_truth_visible_to(split=split, user=user)
    listed: dict[str, Any] = {
        "id": task.task_id,
        "device": task.device.device_id,
        "category": task.device.category,
        "split": None if split is None else {"name": split.name, "version": split.version,
                                             "hidden_ground_truth": split.hidden_ground_truth},
        "instruction": "", "start_view": task.definition.get("start_view", ""),
        "goals": None, "shortest": None, LAMBDA_OPTION: None,
        "play_url": f"/simulator/play/{task.task_id}/",
    }
    try:
        engine, core = engine_with_task(task)
    except ValueError:  # a stored task its device no longer accepts: listed without figures
        return listed
    listed["instruction"] = core.instructions[0] if core.instructions else ""
    if visible:
        shortest = engine.new_episode(core).l_opt
        listed.update(goals=len(core.goals), shortest=int(shortest) if shortest != float("inf") else None)
        listed[LAMBDA_OPTION] = core.lam
    return listed
