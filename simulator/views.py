"""HTML pages of the simulator: home, play (the websocket does the playing), baseline, replay viewer.

Plain function views; each loads through a selector or calls a service and renders.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.roles import is_curator
from scoring.benchmarks import plugin_for
from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.episode_options import INSTRUCTION_OPTION
from scoring.benchmarks.vge.core.rephrase import STYLES as INSTRUCTION_STYLES
from scoring.benchmarks.vge.core.task_defs import LAMBDA_MAX, LAMBDA_MIN, LAMBDA_OPTION
from scoring.benchmarks.vge.plugin import SLUG as VGE_SLUG
from scoring.core.disclosure import detail_keys, disclosed
from scoring.error_pages import ErrorPage, refusals_shown
from scoring.models import Submission
from simulator import human_board, selectors
from simulator.engines import GUEST_EPISODES_KEY, EpisodeError, episode_reach_check, guest_episode_ids
from simulator.models import Device, Episode, Task
from simulator.playtests import hidden_playtests_q
from simulator.services.baseline import baseline_mark, baseline_next_episode
from simulator.services.episodes import episode_open_for_guest, episode_open_for_player
from simulator.services.players import player_replay_name_set
from simulator.services.view_images import device_view_image

# A refusal on a simulator page: the error page titled "Simulator", back to the simulator's home.
refusals_shown_here = refusals_shown(ErrorPage("Simulator", "simulator-home", "Back to the simulator"))


def home(request: HttpRequest) -> HttpResponse:
    devices = selectors.devices_with_tasks()
    cards = selectors.task_cards(devices=devices, user=request.user)
    categories: dict[str, list] = {}
    for device in devices:
        device.task_cards = [{"task": t, **cards[t.task_id]} for t in device.tasks.all()]
        categories.setdefault(device.category, []).append(device)
    mine = []
    if request.user.is_authenticated:
        mine = list(Episode.objects.filter(hidden_playtests_q(request.user, to_device="task__device__"),
                                           owner=request.user).select_related("task__sample__split")
                    .order_by("-updated_at")[:15])
    return render(request, "simulator/home.html", {
        "categories": sorted(categories.items()),
        "devices_count": len(devices),
        "tasks_count": sum(len(d.tasks.all()) for d in devices),
        "progress": selectors.player_baseline_progress(user=request.user),
        "mine": mine,
        "curator": is_curator(request.user),
        "human": selectors.baseline_overview()["human"],
        "replay_name": selectors.player_replay_name_chosen(user=request.user),
        "practice": practice.TASK_ID if Task.objects.filter(task_id=practice.TASK_ID).exists() else None,
    })


@refusals_shown_here
def play_task(request: HttpRequest, task_id: str) -> HttpResponse:
    """Resume the player's running episode on this task with the options asked for (`?lambda=N`: the interaction
    budget λ, none: the task's own; `?instruction=rephrased`: the goals in a second wording), or start one with
    them. Without an account: the practice task only (its episode kept in this browser's session); any other task
    sends the visitor to sign in, saying why (issue 32)."""
    task_id = task_id.strip("/")
    if not request.user.is_authenticated:
        if task_id != practice.TASK_ID:
            messages.info(request, "Scored episodes need an account: sign in (or register) to play this task. "
                                   "The practice panel on the simulator's home page needs no account.")
            return redirect_to_login(request.get_full_path())
        guests = guest_episode_ids(request.session)
        episode = episode_open_for_guest(task_id=task_id, guest_episodes=guests)
        if episode.pk not in guests:
            request.session[GUEST_EPISODES_KEY] = [*guests, episode.pk][-20:]
        return redirect("simulator-episode-play", pk=episode.pk)
    episode = episode_open_for_player(user=request.user, task_id=task_id.strip("/"),
                                      lam=request.GET.get(LAMBDA_OPTION) or None,
                                      instruction=request.GET.get(INSTRUCTION_OPTION) or None)
    return redirect("simulator-episode-play", pk=episode.pk)


@refusals_shown_here
def episode_play(request: HttpRequest, pk: int) -> HttpResponse:
    guests = [] if request.user.is_authenticated else guest_episode_ids(request.session)
    if not request.user.is_authenticated and pk not in guests:
        return redirect_to_login(request.get_full_path())
    episode = Episode.objects.select_related("task__device", "task__sample__split").filter(pk=pk).first()
    if episode is None:
        raise Http404(f"Unknown episode {pk}.")
    episode_reach_check(episode, request.user)
    if episode.owner_id != (request.user.pk if request.user.is_authenticated else None):
        raise EpisodeError(
            "This episode belongs to someone else; you can watch its replay once it is over.", status=403)
    split = episode.task.sample.split if episode.task.sample_id else None
    return render(request, "simulator/play.html", {
        "episode": episode, "task": episode.task, "baseline": episode.task.baseline_rank is not None,
        "options": selectors.episode_options_shown(episode, hidden=bool(split and split.hidden_ground_truth)),
        "practice_hints": list(practice.HINTS) if episode.task.task_id == practice.TASK_ID else None,
        "lambdas": range(LAMBDA_MIN, LAMBDA_MAX + 1), "instruction_styles": INSTRUCTION_STYLES,
        "guest": not request.user.is_authenticated,
        "result": selectors.episode_result_shown(episode, user=request.user),
    })


@login_required
@refusals_shown_here
def baseline_next(request: HttpRequest) -> HttpResponse:
    episode = baseline_next_episode(user=request.user)
    if episode is None:
        progress = selectors.player_baseline_progress(user=request.user)
        if progress["total"]:
            messages.success(request, f"You have played all {progress['total']} baseline tasks. Thank you!")
        else:
            messages.info(request, "No baseline set has been chosen yet.")
        return redirect("simulator-home")
    return redirect("simulator-episode-play", pk=episode.pk)


@login_required
@require_http_methods(["GET", "POST"])
@refusals_shown_here
def baseline_curate(request: HttpRequest) -> HttpResponse:
    if not is_curator(request.user):
        raise EpisodeError("Only curators choose the baseline set.", status=403)
    if request.method == "POST":
        try:
            per_stratum = int(request.POST.get("per_stratum", "1"))
            seed = int(request.POST.get("seed", "0"))
        except ValueError:
            messages.error(request, "per_stratum and seed must be whole numbers.")
            return redirect("simulator-baseline")
        try:
            tasks = baseline_mark(user=request.user, per_stratum=per_stratum, seed=seed)
        except EpisodeError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"The baseline set now has {len(tasks)} tasks ({per_stratum} per stratum, seed {seed}).")
        return redirect("simulator-baseline")
    return render(request, "simulator/baseline.html", selectors.baseline_overview())


@login_required
@require_POST
@refusals_shown_here
def baseline_refresh(request: HttpRequest) -> HttpResponse:
    if not is_curator(request.user):
        raise EpisodeError("Only curators recompute the Human row.", status=403)
    rows = human_board.human_board_refresh()
    messages.success(request, "Human row recomputed." if rows else "No finished baseline episode yet.")
    return redirect("simulator-baseline")


@login_required
@require_POST
@refusals_shown_here
def player_replay_name(request: HttpRequest) -> HttpResponse:
    """The player's choice whether their replays show their name to everyone (issue 32)."""
    shown = request.POST.get("shown") == "1"
    player_replay_name_set(user=request.user, shown=shown)
    messages.success(request, "Your replays now show your name to everyone." if shown
                     else "Your replays now show you as “a player” to everyone but you and the curators.")
    return redirect("simulator-home")


def _replay_shown(request: HttpRequest, replay: dict, *, hidden: bool) -> dict:
    """The replay as this viewer may see it. On a split with hidden ground truth a non-curator sees what the agent
    saw and did (views, images, outputs, actions, feedback) and the episode's metrics, as the VGE plugin allows:
    no states, goals, later instructions, budgets or l_opt. The images are drawn from the full replay."""
    keys = detail_keys(plugin_for(VGE_SLUG), hidden=hidden, curator=is_curator(request.user))
    if keys is None:
        return replay
    task = replay["task"]
    return {
        **replay,
        "options": "",  # an episode's own λ is the task's unless chosen: the task's is not shown here
        # The first instruction is the sample's input, given to every player at the start.
        "task": {"id": task.get("id"), "instructions": list(task.get("instructions") or ())[:1]},
        "metrics": disclosed(replay["metrics"], keys),
        "frames": [{"turn": f["turn"], "image": f["image"], "view": f["view"],
                    "step": disclosed(f["step"], keys) if f["step"] else None} for f in replay["frames"]],
    }


@refusals_shown_here
def replay_episode(request: HttpRequest, pk: int) -> HttpResponse:
    replay = selectors.replay_episode(episode_id=pk, user=request.user)
    hidden = bool(Episode.objects.filter(pk=pk).values_list("task__sample__split__hidden_ground_truth", flat=True)
                  .first())
    compare = []
    for other in selectors.same_task_replays(episode_id=pk, user=request.user):
        shown = _replay_shown(request, other["replay"], hidden=other["hidden"])
        compare.append({"label": other["label"], "url": other["url"], "outcome": shown["outcome"],
                        "metrics": shown["metrics"], "frames": shown["frames"]})
    return render(request, "simulator/replay.html",
                  {"replay": _replay_shown(request, replay, hidden=hidden), "compare": compare})


@refusals_shown_here
def replay_submission(request: HttpRequest, submission_id: int, index: int) -> HttpResponse:
    replay = selectors.replay_submission(submission_id=submission_id, index=index, user=request.user)
    hidden = bool(Submission.objects.filter(pk=submission_id).values_list("split__hidden_ground_truth", flat=True)
                  .first())
    return render(request, "simulator/replay.html",
                  {"replay": _replay_shown(request, replay, hidden=hidden), "submission_id": submission_id})


def _png(replay: dict, turn: int, device_id: str) -> HttpResponse:
    view, state = selectors.replay_image_state(replay=replay, turn=turn)
    path = device_view_image(device_row=Device.objects.get(device_id=device_id), view=view, state=state)
    response = FileResponse(open(path, "rb"), content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    return response


def replay_episode_image(request: HttpRequest, pk: int, turn: int) -> HttpResponse:
    try:
        replay = selectors.replay_episode(episode_id=pk, user=request.user)
        return _png(replay, turn, replay["device"])
    except EpisodeError as exc:
        return HttpResponse(exc.message, status=exc.status, content_type="text/plain")


def replay_submission_image(request: HttpRequest, submission_id: int, index: int, turn: int) -> HttpResponse:
    try:
        replay = selectors.replay_submission(submission_id=submission_id, index=index, user=request.user)
        return _png(replay, turn, replay["device"])
    except EpisodeError as exc:
        return HttpResponse(exc.message, status=exc.status, content_type="text/plain")
