"""VGE agent API (token auth): list the tasks, start an episode, act, read the trace, fetch the view image, bundle
episodes. What /api/docs/ says of each view: simulator/api_docs.py.

One DRF view per operation; each calls a service in simulator.services.* and answers with explicit serializers.
"""
from __future__ import annotations

from django.http import FileResponse, HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.roles import is_curator
from scoring import services as scoring_services
from scoring.benchmarks import plugin_for
from scoring.benchmarks.vge.core.engine import EpisodeState
from scoring.benchmarks.vge.core.episode_options import HISTORY_OPTION, INSTRUCTION_OPTION, history_window
from scoring.benchmarks.vge.core.grammar import feedback_text
from scoring.benchmarks.vge.core.task_defs import LAMBDA_OPTION
from scoring.core.disclosure import detail_keys, disclosed
from scoring.errors import InvalidRequest, ServiceRefusal
from scoring.serializers import error_responses
from simulator import api_docs, selectors
from simulator.engines import EpisodeError, engine_with_task, episode_reach_check, guest_episode_ids, observation
from simulator.models import Episode
from simulator.serializers import (
    TASKS_PAGE_MAX,
    TASKS_PAGE_SIZE,
    ActBatchInput,
    ActBatchOutput,
    ActInput,
    ActOutput,
    BundleInput,
    BundleOutput,
    EpisodeCreateInput,
    EpisodeOutput,
    EpisodeStartOutput,
    TaskListQuery,
    TaskPageOutput,
    plain_act_output,
    plain_start_input,
)
from simulator.services.bundles import episodes_submission_create
from simulator.services.episodes import episode_start, episode_step, episode_step_within, writer_cache
from simulator.services.library import BENCHMARK_SLUG
from simulator.services.view_images import episode_view_png


def start_answer(*, user, data, in_batch: bool = False) -> tuple[int, dict]:
    """Status and body of a start request (the view below, the ASGI fast path, simulator.asgi, and the agent socket).
    `in_batch`: played by the agent writer (simulator.agent_writer), whose episode cache then knows the episode."""
    try:
        v = plain_start_input(data)
        if v is None:
            serializer = EpisodeCreateInput(data=data)
            if not serializer.is_valid():
                raise InvalidRequest(serializer.errors)
            v = serializer.validated_data
        episode, obs = episode_start(user=user, task_id=v["task"], perturbation=v["perturbation"],
                                     lam=v.get(LAMBDA_OPTION), history=v["history"], instruction=v["instruction"],
                                     cache=writer_cache if in_batch else None)
    except ServiceRefusal as exc:
        return exc.status, exc.body()
    return 201, {"episode": episode.pk, "observation": obs, **obs}


def step_answer(*, user, episode_id: int, output: str, in_batch: bool = False) -> tuple[int, dict]:
    """Status and body of an act request whose output is checked (the view below, the ASGI fast path and the agent
    socket). `in_batch`: played inside the agent writer's transaction (simulator.agent_writer), not one of its own,
    from its episode cache (services.episodes.EpisodeCache)."""
    try:
        if in_batch:
            outcome, obs = episode_step_within(episode_id=episode_id, user=user, output=output, cache=writer_cache)
        else:
            outcome, obs = episode_step(episode_id=episode_id, user=user, output=output)
    except ServiceRefusal as exc:
        return exc.status, exc.body()
    return 200, act_answer(outcome, obs)


class EpisodeCreateApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(tags=[api_docs.TAG], **api_docs.START, request=EpisodeCreateInput,
                   responses={201: EpisodeStartOutput, **error_responses(400, 401, 404)})
    def post(self, request: Request) -> Response:
        status, body = start_answer(user=request.user, data=request.data)
        return Response(body, status=status)


class EpisodeActApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(tags=[api_docs.TAG], **api_docs.ACT, parameters=[api_docs.EPISODE_ID], request=ActInput,
                   responses={200: ActOutput, **error_responses(400, 401, 403, 404, 409)})
    def post(self, request: Request, pk: int) -> Response:
        output = plain_act_output(request.data)
        if output is None:
            data = ActInput(data=request.data)
            data.is_valid(raise_exception=True)
            output = data.validated_data["output"]
        status, body = step_answer(user=request.user, episode_id=pk, output=output)
        return Response(body, status=status)


def act_answer(outcome, obs: dict) -> dict:
    """The body of a played turn, the one every agent path answers (the view above, the fast path, the batch, the
    agent socket): `feedback.text` a sentence, or left out when the device says nothing (grammar.feedback_text)."""
    feedback: dict = {"kind": outcome.kind}
    text = feedback_text(outcome.feedback)
    if text is not None:
        feedback["text"] = text
    feedback["action"] = outcome.action.text() if outcome.action else None
    feedback["goal_reached"] = outcome.goal_reached is not None
    return {"feedback": feedback, "observation": obs, "done": outcome.done}


class EpisodeActBatchApi(APIView):
    """Several episodes' actions in one request, for harnesses that run many episodes at once. Each action is
    played exactly as by its one-action call (its own transaction) and answered independently, in order: one
    refused action (unknown episode, someone else's, already over) does not stop the others. At most one action
    per episode in a batch (a turn answers what the next one should be)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="vge_episodes_act_batch", tags=[api_docs.TAG], **api_docs.ACT_BATCH,
                   request=ActBatchInput,
                   responses={200: ActBatchOutput, **error_responses(400, 401)})
    def post(self, request: Request) -> Response:
        data = ActBatchInput(data=request.data)
        data.is_valid(raise_exception=True)
        actions = data.validated_data["actions"]
        episodes = [a["episode"] for a in actions]
        if len(set(episodes)) != len(episodes):
            raise InvalidRequest({"actions": ["At most one action per episode in a batch."]})
        results = []
        for action in actions:
            status, body = step_answer(user=request.user, episode_id=action["episode"], output=action["output"])
            results.append({"episode": action["episode"], "status": status, **body})
        return Response({"results": results})


def detail_answer(*, user, episode_id: int) -> dict:
    """The episode as this user may see it: the detail view below and the agent socket's `state` (simulator.agent).
    Refusals are raised."""
    episode = Episode.objects.select_related("task__device", "task__sample__split").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    episode_reach_check(episode, user)
    if episode.owner_id not in (None, user.pk) and not user.is_staff:
        raise EpisodeError("This episode belongs to someone else.", status=403)
    engine, _ = engine_with_task(episode.task)
    state = EpisodeState.from_dict(episode.state)
    trace = selectors.episode_trace(episode=episode)
    metrics = episode.metrics
    split = episode.task.sample.split if episode.task.sample_id else None
    # A task of a hidden split: even once over, the player sees what it saw while playing, no states or l_opt.
    keys = detail_keys(plugin_for(BENCHMARK_SLUG), hidden=bool(split and split.hidden_ground_truth),
                       curator=is_curator(user))
    if not episode.finished or keys is not None:
        trace = [selectors.public_step(s) for s in trace]
        metrics = disclosed(metrics, keys)
    else:
        trace = [selectors.step_shown(s) for s in trace]
    if not episode.finished:  # the agent sees the past turns its `history` option allows (the steps stay whole)
        trace = history_window(trace, episode.history)
    # λ: the one the episode chose, or its task's, which a task of a hidden split does not disclose
    budget = {LAMBDA_OPTION: episode.played_lambda} if keys is None or episode.lam is not None else {}
    return {
        **budget,
        "id": episode.pk,
        "task": episode.task.task_id,
        "kind": episode.kind,
        "finished": episode.finished,
        "success": episode.success,
        "metrics": metrics,
        "perturbation": episode.perturbation,
        HISTORY_OPTION: episode.history_shown,
        INSTRUCTION_OPTION: episode.instruction,
        "observation": observation(episode=episode, engine=engine, state=state),
        "trace": trace,
    }


class EpisodeDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(tags=[api_docs.TAG], **api_docs.DETAIL, parameters=[api_docs.EPISODE_ID],
                   responses={200: EpisodeOutput, **error_responses(401, 403, 404)})
    def get(self, request: Request, pk: int) -> Response:
        return Response(detail_answer(user=request.user, episode_id=pk))


class SignedInOrOwnPractice(permissions.BasePermission):
    """Signed in, or the anonymous visitor whose browser started this practice episode (issue 32)."""

    def has_permission(self, request: Request, view) -> bool:
        if request.user and request.user.is_authenticated:
            return True
        return int(view.kwargs.get("pk", 0)) in guest_episode_ids(getattr(request, "session", None))


class EpisodeViewImageApi(APIView):
    permission_classes = [SignedInOrOwnPractice]

    @extend_schema(tags=[api_docs.TAG], **api_docs.VIEW, parameters=[
        api_docs.EPISODE_ID, OpenApiParameter("turn", int, description="The view after this turn (0: the start); "
                                                                       "default: now.")],
        responses={(200, "image/png"): bytes, **error_responses(400, 401, 403, 404)})
    def get(self, request: Request, pk: int):
        turn = request.query_params.get("turn")
        try:
            image = episode_view_png(
                episode_id=pk, user=request.user, turn=int(turn) if turn not in (None, "") else None
            )
        except ValueError:
            raise ServiceRefusal("turn must be an integer") from None
        if isinstance(image, bytes):  # perturbed for this episode and turn
            response = HttpResponse(image, content_type="image/png")
        else:
            response = FileResponse(open(image, "rb"), content_type="image/png")
        response["Cache-Control"] = "private, max-age=3600"
        return response


class EpisodeBundleApi(APIView):
    """Bundle the caller's finished agent episodes on a split's tasks into a submission for a model entry."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(tags=[api_docs.TAG], **api_docs.BUNDLE, request=BundleInput,
                   responses={201: BundleOutput, **error_responses(400, 401, 403, 404, 409, 413, 429)})
    def post(self, request: Request) -> Response:
        data = BundleInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        split = scoring_services.split_resolve(benchmark_slug=BENCHMARK_SLUG, split_name=v.get("split") or None)
        entry = scoring_services.model_entry_for_upload(user=request.user, name=v["model"], fields={"kind": "embodied"})
        submission = episodes_submission_create(user=request.user, split=split, model_entry=entry,
                                                note=v["note"], perturbation=v["perturbation"],
                                                lam=v.get(LAMBDA_OPTION), history=v["history"],
                                                instruction=v["instruction"])
        return Response({"submission": submission.pk, "status": submission.status,
                         "url": f"/api/submissions/{submission.pk}/"}, status=201)


class TaskPages(PageNumberPagination):
    page_size = TASKS_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = TASKS_PAGE_MAX


class TaskListApi(APIView):
    """The tasks one may play, paged, with what each split may show (simulator.selectors.task_listed)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(tags=[api_docs.TAG], **api_docs.TASKS, parameters=[TaskListQuery],
                   responses={200: TaskPageOutput, **error_responses(400, 404)})
    def get(self, request: Request) -> Response:
        query = TaskListQuery(data=request.query_params)
        if not query.is_valid():
            raise InvalidRequest(query.errors)
        v = query.validated_data
        tasks = selectors.playable_tasks(user=request.user, split=v.get("split", ""), category=v.get("category", ""),
                                         device=v.get("device", ""))
        pages = TaskPages()
        page = pages.paginate_queryset(tasks, request, view=self) or []
        return pages.get_paginated_response([selectors.task_listed(task, user=request.user) for task in page])
