"""Every route × every role × a public and a hidden split: the status class each gets, and that the hidden split's
ground truth (its masks' RLE strings) and images never reach someone not allowed them.

The table is keyed by the URLconf's own patterns (walked from `get_resolver()`) and the websocket routes (those
behind the session stack and those authenticated by token alone): a route
without a row fails `test_every_route_has_a_row`. A row names how to build its URL from the fixture objects
(tests/access_fixtures.py) and the expected class per role and split kind:
  ok: 200 · login: a redirect to the login page · hidden: 404 (or 403) · safe: refused or answered, never a 5xx,
  never a leak (routes whose own tests hold their object rules, named in the row).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from config.routing import token_websocket_urlpatterns, websocket_urlpatterns
from tests.access_fixtures import ROLES, Variant, playtest_build, world_build

pytestmark = pytest.mark.django_db

OK, LOGIN, HIDDEN, SAFE = "ok", "login", "hidden", "safe"
ALLOWED_STATUS = {
    OK: {200},
    LOGIN: {302},
    HIDDEN: {403, 404},
    SAFE: {200, 204, 301, 302, 400, 401, 403, 404, 405, 409},
}
EVERYONE = dict.fromkeys(ROLES, OK)
SIGNED_IN = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}
CURATORS_ONLY = {**dict.fromkeys(ROLES, HIDDEN), "curator": OK}
ALL_SAFE = dict.fromkeys(ROLES, SAFE)
# The owner's own submission: its page (login first for the anonymous), curators too.
OWN = {**dict.fromkeys(ROLES, HIDDEN), "anonymous": LOGIN, "owner": OK, "curator": OK}
# Per-sample results of a public submission: anyone on a public split; owner and curators on a hidden one.
DRILL_HIDDEN = {**dict.fromkeys(ROLES, HIDDEN), "owner": OK, "curator": OK}
# A hidden split's images: reviewers, curators and who has an accepted submission on it.
IMAGES_HIDDEN = {**dict.fromkeys(ROLES, HIDDEN), "owner": OK, "reviewer": OK, "curator": OK}


@dataclass(frozen=True)
class Row:
    url: Callable[[Variant], str] | None  # None: not fetched here (the row's `held_by` tests it)
    public: dict[str, str]
    hidden: dict[str, str] | None = None  # None: as public
    held_by: str = ""  # the tests that hold this route's object rules when the table only checks it is safe

    @property
    def per_split(self) -> bool:
        return self.hidden is not None or getattr(self.url, "per_split", False)


def sub(path: str) -> Callable[[Variant], str]:
    def build(v: Variant) -> str:
        return path.format(pk=v.submission.pk, split=v.split.name, split_id=v.split.pk, version=v.split.version,
                           entry=v.submission.model_entry.slug)
    build.per_split = True
    return build


def fixed(path: str) -> Callable[[Variant], str]:
    return lambda v: path


RUNS_HELD = "tests/evaluations/test_run_pages.py: owner, curator, another user, anonymous"
LAB = {**dict.fromkeys(ROLES, HIDDEN), "anonymous": LOGIN, "annotator": OK, "reviewer": OK, "curator": OK}
LAB_TESTS = "tests/devicelab/test_views.py: who sees which project and draft"
NOT_HERE = "tests/annotation, tests/simulator, tests/scoring/benchmarks/plan: their roles × objects tests"

TABLE: dict[str, Row] = {
    "": Row(fixed("/"), EVERYONE),
    "healthz": Row(fixed("/healthz"), EVERYONE),
    "accounts/signup/": Row(fixed("/accounts/signup/"), ALL_SAFE),
    "accounts/token/": Row(fixed("/accounts/token/"), ALL_SAFE),
    "accounts/login/": Row(fixed("/accounts/login/"), ALL_SAFE),
    "accounts/logout/": Row(fixed("/accounts/logout/"), ALL_SAFE),
    "accounts/lockouts/": Row(fixed("/accounts/lockouts/"), {**CURATORS_ONLY, "anonymous": LOGIN}),
    "accounts/password_change/": Row(fixed("/accounts/password_change/"), SIGNED_IN),
    "accounts/password_change/done/": Row(fixed("/accounts/password_change/done/"), SIGNED_IN),
    "accounts/password_reset/": Row(fixed("/accounts/password_reset/"), EVERYONE),
    "accounts/password_reset/done/": Row(fixed("/accounts/password_reset/done/"), EVERYONE),
    "accounts/reset/<uidb64>/<token>/": Row(fixed("/accounts/reset/MQ/set-password/"), ALL_SAFE),
    "accounts/reset/done/": Row(fixed("/accounts/reset/done/"), EVERYONE),
    "submissions/": Row(fixed("/submissions/"), SIGNED_IN),
    "submissions/new/": Row(fixed("/submissions/new/"), SIGNED_IN),
    "submissions/<int:pk>/": Row(sub("/submissions/{pk}/"), OWN),
    "submissions/<int:pk>/visibility/": Row(sub("/submissions/{pk}/visibility/"), ALL_SAFE),
    # A public score's provenance is anyone's (the board shows its keys); a hidden split's ground-truth hash is
    # withheld but for curators (tests/scoring/test_provenance.py holds that and the private case).
    "submissions/<int:pk>/provenance.json": Row(sub("/submissions/{pk}/provenance.json"), EVERYONE),
    "submissions/<int:pk>/reproduce/": Row(sub("/submissions/{pk}/reproduce/"), ALL_SAFE,
                                           held_by="tests/scoring/test_provenance.py"),
    "api/submissions/provenance/verify/": Row(fixed("/api/submissions/provenance/verify/"), ALL_SAFE,
                                              held_by="tests/scoring/test_provenance.py"),
    "models/<slug:slug>/edit/": Row(sub("/models/{entry}/edit/"), ALL_SAFE),
    "api/submissions/": Row(fixed("/api/submissions/"), ALL_SAFE),
    "api/submissions/mine/": Row(fixed("/api/submissions/mine/"), ALL_SAFE),
    "api/submissions/<int:pk>/": Row(sub("/api/submissions/{pk}/"),
                                     {**dict.fromkeys(ROLES, HIDDEN), "anonymous": SAFE, "owner": OK, "curator": OK}),

    "annotation/review/": Row(fixed("/annotation/review/"), ALL_SAFE, held_by=NOT_HERE),
    "annotation/review/items/<int:pk>/": Row(fixed("/annotation/review/items/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "annotation/review/items/<int:pk>/history/": Row(fixed("/annotation/review/items/999999/history/"), ALL_SAFE,
                                                     held_by=NOT_HERE),
    "annotation/review/projects/<slug:slug>/": Row(fixed("/annotation/review/projects/none/"), ALL_SAFE,
                                                   held_by=NOT_HERE),
    "annotation/review/splits/<int:pk>/": Row(sub("/annotation/review/splits/{split_id}/"),
                                              {**dict.fromkeys(ROLES, SAFE), "anonymous": LOGIN}),
    "annotation/second/<int:pk>/": Row(fixed("/annotation/second/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/second/<int:pk>/": Row(fixed("/api/annotation/second/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/second/<int:pk>/submit/": Row(fixed("/api/annotation/second/999999/submit/"), ALL_SAFE,
                                                  held_by=NOT_HERE),
    "annotation/": Row(fixed("/annotation/"), ALL_SAFE, held_by=NOT_HERE),
    "annotation/projects/<slug:slug>/": Row(fixed("/annotation/projects/none/"), ALL_SAFE, held_by=NOT_HERE),
    "annotation/projects/<slug:slug>/export.zip": Row(fixed("/annotation/projects/none/export.zip"), ALL_SAFE,
                                                      held_by=NOT_HERE),
    "annotation/items/<int:pk>/": Row(fixed("/annotation/items/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "annotation/items/<int:pk>/editor.json": Row(fixed("/annotation/items/999999/editor.json"), ALL_SAFE,
                                                 held_by="tests/annotation/test_editor_data.py"),
    "api/annotation/images/": Row(fixed("/api/annotation/images/"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/images/<int:pk>/file/": Row(fixed("/api/annotation/images/999999/file/"), ALL_SAFE,
                                                held_by=NOT_HERE),
    "api/annotation/images/<int:pk>/segment/": Row(fixed("/api/annotation/images/999999/segment/"), ALL_SAFE,
                                                   held_by=NOT_HERE),
    "api/annotation/images/<int:pk>/embedding/": Row(fixed("/api/annotation/images/999999/embedding/"), ALL_SAFE,
                                                     held_by=NOT_HERE),
    "api/annotation/images/<int:pk>/embedding/features/": Row(
        fixed("/api/annotation/images/999999/embedding/features/"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/decoders/<slug:model_key>/<slug:fingerprint>.onnx": Row(
        fixed("/api/annotation/decoders/none/none.onnx"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/items/<int:pk>/": Row(fixed("/api/annotation/items/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "api/annotation/items/<int:pk>/submit/": Row(fixed("/api/annotation/items/999999/submit/"), ALL_SAFE,
                                                 held_by=NOT_HERE),
    "api/annotation/items/<int:pk>/overlay/": Row(fixed("/api/annotation/items/999999/overlay/"), ALL_SAFE,
                                                  held_by=NOT_HERE),
    "plan/judgements/": Row(fixed("/plan/judgements/"), ALL_SAFE, held_by=NOT_HERE),
    "plan/judgements/<int:pk>/decide/": Row(fixed("/plan/judgements/999999/decide/"), ALL_SAFE, held_by=NOT_HERE),
    "plan/audit/": Row(fixed("/plan/audit/"), ALL_SAFE, held_by=NOT_HERE),
    "plan/audit/<int:split_id>/": Row(sub("/plan/audit/{split_id}/"), ALL_SAFE, held_by=NOT_HERE),
    "plan/audit/checks/<int:pk>/": Row(fixed("/plan/audit/checks/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "plan/submissions/<int:pk>/verdicts/": Row(sub("/plan/submissions/{pk}/verdicts/"), ALL_SAFE, held_by=NOT_HERE),
    # The tasks one may play: anyone; a hidden split's figures for curators only (tests/simulator/test_task_list.py).
    "api/vge/tasks/": Row(fixed("/api/vge/tasks/"), EVERYONE, held_by="tests/simulator/test_task_list.py"),
    "api/vge/episodes/": Row(fixed("/api/vge/episodes/"), ALL_SAFE, held_by=NOT_HERE),
    "api/vge/episodes/<int:pk>/": Row(fixed("/api/vge/episodes/999999/"), ALL_SAFE, held_by=NOT_HERE),
    "api/vge/episodes/<int:pk>/act/": Row(fixed("/api/vge/episodes/999999/act/"), ALL_SAFE, held_by=NOT_HERE),
    "api/vge/episodes/act/": Row(fixed("/api/vge/episodes/act/"), ALL_SAFE, held_by=NOT_HERE),
    "api/vge/episodes/<int:pk>/view.png": Row(fixed("/api/vge/episodes/999999/view.png"), ALL_SAFE,
                                              held_by=NOT_HERE),
    "api/vge/submissions/": Row(fixed("/api/vge/submissions/"), ALL_SAFE, held_by=NOT_HERE),
    # Evaluation runs: signed in; a run's pages are its owner's and curators' (tests/evaluations hold the rules).
    "evaluations/": Row(fixed("/evaluations/"), SIGNED_IN),
    "evaluations/new/": Row(fixed("/evaluations/new/"), SIGNED_IN),
    "evaluations/<int:pk>/": Row(fixed("/evaluations/999999/"), ALL_SAFE, held_by=RUNS_HELD),
    "evaluations/<int:pk>/progress.json": Row(fixed("/evaluations/999999/progress.json"), ALL_SAFE,
                                              held_by=RUNS_HELD),
    "evaluations/<int:pk>/partial.jsonl": Row(fixed("/evaluations/999999/partial.jsonl"), ALL_SAFE,
                                              held_by=RUNS_HELD),
    "evaluations/<int:pk>/r<int:repeat>.jsonl": Row(fixed("/evaluations/999999/r1.jsonl"), ALL_SAFE,
                                                    held_by=RUNS_HELD),
    "evaluations/<int:pk>/<slug:action>/": Row(fixed("/evaluations/999999/cancel/"), ALL_SAFE, held_by=RUNS_HELD),
    # The device lab (issue 33): annotators, reviewers and curators; the drafts' object rules in tests/devicelab.
    "devicelab/": Row(fixed("/devicelab/"), LAB),
    "devicelab/projects/<slug:slug>/": Row(fixed("/devicelab/projects/none/"), ALL_SAFE, held_by=LAB_TESTS),
    "devicelab/projects/<slug:slug>/authoring.csv": Row(fixed("/devicelab/projects/none/authoring.csv"), ALL_SAFE,
                                                        held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/": Row(fixed("/devicelab/drafts/999999/"), ALL_SAFE, held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/photos/<slug:view>/": Row(fixed("/devicelab/drafts/999999/photos/front/"), ALL_SAFE,
                                                         held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/looks/<slug:view>/": Row(fixed("/devicelab/drafts/999999/looks/front/"), ALL_SAFE,
                                                        held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/playtest/": Row(fixed("/devicelab/drafts/999999/playtest/"), ALL_SAFE,
                                               held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/review/": Row(fixed("/devicelab/drafts/999999/review/"), ALL_SAFE, held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/publish/": Row(fixed("/devicelab/drafts/999999/publish/"), ALL_SAFE,
                                              held_by=LAB_TESTS),
    "devicelab/drafts/<int:pk>/export.zip": Row(fixed("/devicelab/drafts/999999/export.zip"), ALL_SAFE,
                                                held_by=LAB_TESTS),
    "api/devicelab/drafts/<int:pk>/": Row(fixed("/api/devicelab/drafts/999999/"), ALL_SAFE, held_by=LAB_TESTS),
    "api/devicelab/drafts/<int:pk>/propose/": Row(fixed("/api/devicelab/drafts/999999/propose/"), ALL_SAFE,
                                                  held_by=LAB_TESTS),
    "api/devicelab/drafts/<int:pk>/checks/": Row(fixed("/api/devicelab/drafts/999999/checks/"), ALL_SAFE,
                                                 held_by=LAB_TESTS),
    "simulator/": Row(fixed("/simulator/"), EVERYONE),
    "simulator/play/<path:task_id>/": Row(fixed("/simulator/play/none/t1/"), ALL_SAFE, held_by=NOT_HERE),
    "simulator/episodes/<int:pk>/play/": Row(fixed("/simulator/episodes/999999/play/"), ALL_SAFE, held_by=NOT_HERE),
    "simulator/player/replay-name/": Row(fixed("/simulator/player/replay-name/"), ALL_SAFE,
                                         held_by="tests/simulator/test_players_replay_name.py"),
    "simulator/baseline/": Row(fixed("/simulator/baseline/"), ALL_SAFE),
    "simulator/baseline/next/": Row(fixed("/simulator/baseline/next/"), ALL_SAFE),
    "simulator/baseline/refresh/": Row(fixed("/simulator/baseline/refresh/"), ALL_SAFE),
    "simulator/replay/episode/<int:pk>/": Row(fixed("/simulator/replay/episode/999999/"), ALL_SAFE,
                                              held_by=NOT_HERE),
    "simulator/replay/episode/<int:pk>/view/<int:turn>.png": Row(
        fixed("/simulator/replay/episode/999999/view/0.png"), ALL_SAFE, held_by=NOT_HERE),
    # An EPIC submission is no VGE submission: a 404 for all, whatever its split.
    "simulator/replay/submission/<int:submission_id>/<int:index>/": Row(
        sub("/simulator/replay/submission/{pk}/0/"), dict.fromkeys(ROLES, HIDDEN)),
    "simulator/replay/submission/<int:submission_id>/<int:index>/view/<int:turn>.png": Row(
        sub("/simulator/replay/submission/{pk}/0/view/0.png"), dict.fromkeys(ROLES, HIDDEN)),
    "leaderboard/<slug:slug>/": Row(sub("/leaderboard/epic-bench/?split={split}"), EVERYONE),
    "leaderboard/<slug:slug>/export.<str:fmt>": Row(sub("/leaderboard/epic-bench/export.csv?split={split}"), EVERYONE),
    "leaderboard/<slug:slug>/format/": Row(sub("/leaderboard/epic-bench/format/?split={split}"), EVERYONE),
    "leaderboard/<slug:slug>/format/<slug:split>-v<int:version>-example.jsonl": Row(
        sub("/leaderboard/epic-bench/format/{split}-v{version}-example.jsonl"), EVERYONE),
    "leaderboard/<slug:slug>/format/<slug:split>-v<int:version>-inputs.zip": Row(
        sub("/leaderboard/epic-bench/format/{split}-v{version}-inputs.zip"), EVERYONE),
    "leaderboard/<slug:slug>/plots/<str:kind>.svg": Row(sub("/leaderboard/epic-bench/plots/scatter.svg?split={split}"),
                                                        ALL_SAFE),
    "leaderboard/<slug:slug>/diff/": Row(sub("/leaderboard/epic-bench/diff/?split={split}"), EVERYONE),
    "leaderboard/<slug:slug>/rescore/": Row(fixed("/leaderboard/epic-bench/rescore/"),
                                            {**CURATORS_ONLY, "anonymous": LOGIN}),
    "leaderboard/<slug:slug>/snapshots/": Row(fixed("/leaderboard/epic-bench/snapshots/"), EVERYONE),
    "leaderboard/<slug:slug>/snapshots/<slug:name>/": Row(
        fixed("/leaderboard/epic-bench/snapshots/none/"), ALL_SAFE,
        held_by="tests/leaderboard/test_snapshots.py (a snapshot's page and exports, for everyone)"),
    "leaderboard/<slug:slug>/snapshots/<slug:name>/snapshot.<str:fmt>": Row(
        fixed("/leaderboard/epic-bench/snapshots/none/snapshot.json"), ALL_SAFE,
        held_by="tests/leaderboard/test_snapshots.py (a snapshot's page and exports, for everyone)"),
    "leaderboard/<slug:slug>/analysis/": Row(sub("/leaderboard/epic-bench/analysis/?split={split}"), EVERYONE),
    "leaderboard/<slug:slug>/analysis/method/": Row(sub("/leaderboard/epic-bench/analysis/method/"), EVERYONE),
    "leaderboard/<slug:slug>/analysis/<slug:key>.<str:fmt>": Row(
        sub("/leaderboard/epic-bench/analysis/counting-exact.json?split={split}"), EVERYONE,
        dict.fromkeys(ROLES, HIDDEN)),
    "models/<slug:slug>/": Row(sub("/models/{entry}/"), EVERYONE),
    "models/<slug:slug>/chart/<slug:benchmark>.svg": Row(sub("/models/{entry}/chart/epic-bench.svg"), ALL_SAFE),
    "submissions/<int:pk>/samples/": Row(sub("/submissions/{pk}/samples/"), EVERYONE, DRILL_HIDDEN),
    "submissions/<int:pk>/samples.jsonl": Row(sub("/submissions/{pk}/samples.jsonl"), EVERYONE, DRILL_HIDDEN),
    "submissions/<int:pk>/samples/<int:index>/overlay.png": Row(sub("/submissions/{pk}/samples/0/overlay.png"),
                                                                EVERYONE, DRILL_HIDDEN),
    "submissions/precheck/": Row(fixed("/submissions/precheck/"), ALL_SAFE),
    "queue/": Row(fixed("/queue/"), EVERYONE),
    "api/queue/": Row(fixed("/api/queue/"), EVERYONE),
    "notifications/": Row(fixed("/notifications/"), SIGNED_IN),
    # Someone's endpoint is a 404 to everyone else (tests/notifications/test_webhooks.py holds the owner's view)
    "notifications/webhooks/<int:pk>/": Row(fixed("/notifications/webhooks/999999/"),
                                            {**dict.fromkeys(ROLES, HIDDEN), "anonymous": LOGIN},
                                            held_by="tests/notifications/test_webhooks.py"),
    "api/notifications/settings/": Row(fixed("/api/notifications/settings/"),
                                       {**EVERYONE, "anonymous": SAFE}),
    "api/notifications/webhooks/": Row(fixed("/api/notifications/webhooks/"), {**EVERYONE, "anonymous": SAFE}),
    "api/notifications/webhooks/<int:pk>/": Row(fixed("/api/notifications/webhooks/999999/"),
                                                dict.fromkeys(ROLES, SAFE), held_by="tests/notifications/test_webhooks.py"),
    "api/notifications/webhooks/<int:pk>/secret/": Row(fixed("/api/notifications/webhooks/999999/secret/"),
                                                       dict.fromkeys(ROLES, SAFE),
                                                       held_by="tests/notifications/test_webhooks.py"),
    "api/notifications/webhooks/<int:pk>/deliveries/": Row(fixed("/api/notifications/webhooks/999999/deliveries/"),
                                                           dict.fromkeys(ROLES, SAFE),
                                                           held_by="tests/notifications/test_webhooks.py"),
    "api/leaderboards/<slug:benchmark>/": Row(sub("/api/leaderboards/epic-bench/?split={split}"), EVERYONE),
    "api/submissions/precheck/": Row(fixed("/api/submissions/precheck/"), ALL_SAFE),
    "api/schema/": Row(fixed("/api/schema/"), EVERYONE),
    "api/docs/": Row(fixed("/api/docs/"), EVERYONE),
    "api/redoc/": Row(fixed("/api/redoc/"), EVERYONE),
    "favicon.ico": Row(fixed("/favicon.ico"), dict.fromkeys(ROLES, SAFE)),
    "media/<path:path>": Row(lambda v: v.image_url, EVERYONE, IMAGES_HIDDEN),
    # (the traversal and symlink cases: tests/scoring/test_hidden_split_media.py)
    "^api/": Row(fixed("/api/no-such-thing/"), dict.fromkeys(ROLES, HIDDEN)),
    # The admin: one row for every admin route (staff only; the others are sent to its login).
    "admin/": Row(fixed("/admin/scoring/split/"), {**dict.fromkeys(ROLES, LOGIN), "curator": SAFE}),
    # Websockets: refused to all but the owner and staff (submissions), any reader (boards), the player (episodes).
    "ws:ws/submissions/<int:pk>/": Row(None, ALL_SAFE, held_by="tests/scoring/test_consumers.py"),
    "ws:ws/boards/<int:split_id>/": Row(None, ALL_SAFE, held_by="tests/leaderboard (board socket tests)"),
    "ws:ws/vge/episodes/<int:pk>/": Row(None, ALL_SAFE, held_by="tests/simulator/test_consumers.py"),
    # The agent socket: token auth only, its own episodes (and ownerless ones) only.
    "ws:ws/vge/agent/": Row(None, ALL_SAFE, held_by="tests/simulator/test_agent_socket.py"),
}


def routes() -> list[str]:
    """Every HTTP route of the URLconf (the admin's as one `admin/` key), then the websocket routes."""
    found: list[str] = []

    def walk(resolver: URLResolver, prefix: str) -> None:
        for pattern in resolver.url_patterns:
            text = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if text == "admin/":
                    found.append(text)
                    continue
                walk(pattern, text)
            elif isinstance(pattern, URLPattern):
                found.append(text)

    walk(get_resolver(), "")
    sockets = [*websocket_urlpatterns, *token_websocket_urlpatterns]
    return [*dict.fromkeys(found), *(f"ws:{p.pattern}" for p in sockets)]


def test_every_route_has_a_row():
    missing = [r for r in routes() if r not in TABLE]
    stale = [k for k in TABLE if k not in routes()]
    assert not missing, f"routes without a row in tests/test_access_table.py TABLE: {missing}"
    assert not stale, f"rows for routes that no longer exist: {stale}"


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content


def test_each_route_gives_each_role_what_the_table_says(tmp_path, django_user_model):
    world = world_build(tmp_path=tmp_path, user_model=django_user_model)
    clients = {"anonymous": Client(raise_request_exception=False)}
    for role, person in world.users.items():
        clients[role] = Client(raise_request_exception=False)
        clients[role].force_login(person)
    hidden = world.variants["hidden"]
    failures: list[str] = []
    checked = 0
    for route, row in TABLE.items():
        if row.url is None:
            continue
        # A URL naming no split object is asked once; one built from a split's objects on each split.
        kinds = world.variants.items() if row.per_split else list(world.variants.items())[:1]
        for kind, variant in kinds:
            expected = (row.hidden or row.public) if kind == "hidden" else row.public
            url = row.url(variant)
            for role in ROLES:
                cache.clear()  # a page cached for one role must not answer for another
                response = clients[role].get(url)
                checked += 1
                status = response.status_code
                want = expected[role]
                if status not in ALLOWED_STATUS[want]:
                    failures.append(f"{route} [{kind}] as {role}: {status}, expected {want} ({url})")
                    continue
                if want == LOGIN and "/login/" not in response.get("Location", ""):
                    failures.append(f"{route} [{kind}] as {role}: redirected to {response.get('Location')}")
                if role == "curator" or status != 200:
                    continue
                body = _body(response)
                leaked = [s for s in hidden.secrets if s.encode() in body]
                if leaked:
                    failures.append(f"{route} [{kind}] as {role}: hidden ground truth in the body ({leaked[0][:20]}…)")
                if role not in ("owner", "reviewer") and hidden.image_bytes in body:
                    failures.append(f"{route} [{kind}] as {role}: a hidden split's image in the body")
    assert checked > 400
    assert not failures, "\n".join(failures)


# -- play-test devices (issue 33) -----------------------------------------------------------------------------------
# A device lab draft's play-test device (`lab-draft-<id>`, in no split) is its author's (the table's annotator), the
# reviewers' and the curators'; to every other signed-in user each route that reaches it answers as if it did not
# exist. Every route of the simulator, the agent API and their sockets has a row here or says why it cannot reach
# one (PLAYTEST_UNREACHED). Statuses per role; `listed`/`unlisted`: a 200 whose body names the device or not.
LISTED, UNLISTED = "listed", "unlisted"
PLAYS = "plays"  # a redirect to the player (an episode's play page, or the task's that opens one)
PT_STATUS = {OK: {200}, LOGIN: {302}, HIDDEN: {403, 404}, PLAYS: {302}, LISTED: {200}, UNLISTED: {200},
             "created": {201}, "refused": {401, 403}}
AUTHOR_ONLY = {**dict.fromkeys(ROLES, HIDDEN), "annotator": OK}
LAB_PLAYERS = {"anonymous": LOGIN, "other": HIDDEN, "owner": HIDDEN, "annotator": PLAYS, "reviewer": PLAYS,
               "curator": PLAYS}


@dataclass(frozen=True)
class PlaytestRow:
    url: Callable[[object], str]
    expected: dict[str, str]
    method: str = "get"
    data: Callable[[object], dict] | None = None
    status_of: Callable[[object], int] | None = None  # the status to judge (a batch answers each action's own)


def pt(path: str) -> Callable[[object], str]:
    return lambda p: path.format(task=p.task_id, device=p.device_id, running=p.running, finished=p.finished,
                                 draft=p.draft_id, photo=p.photo_path)


def _first_result_status(response) -> int:
    return response.json()["results"][0]["status"] if response.status_code == 200 else response.status_code


PLAYTEST_TABLE: dict[str, PlaytestRow] = {
    # the device list never shows it; the author's own episodes on it are on their "My episodes"
    "simulator/": PlaytestRow(pt("/simulator/"), {**dict.fromkeys(ROLES, UNLISTED), "annotator": LISTED}),
    "simulator/play/<path:task_id>/": PlaytestRow(pt("/simulator/play/{task}/"), LAB_PLAYERS),
    "simulator/episodes/<int:pk>/play/": PlaytestRow(pt("/simulator/episodes/{running}/play/"),
                                                      {**AUTHOR_ONLY, "anonymous": LOGIN}),
    "simulator/replay/episode/<int:pk>/": PlaytestRow(pt("/simulator/replay/episode/{finished}/"),
                                                       {**AUTHOR_ONLY, "curator": OK}),
    "simulator/replay/episode/<int:pk>/view/<int:turn>.png": PlaytestRow(
        pt("/simulator/replay/episode/{finished}/view/0.png"), {**AUTHOR_ONLY, "curator": OK}),
    "api/vge/tasks/": PlaytestRow(pt("/api/vge/tasks/?device={device}"),
                                  {**dict.fromkeys(ROLES, UNLISTED), "annotator": LISTED, "reviewer": LISTED,
                                   "curator": LISTED}),
    "api/vge/episodes/": PlaytestRow(pt("/api/vge/episodes/"),
                                     {"anonymous": "refused", "other": HIDDEN, "owner": HIDDEN,
                                      "annotator": "created", "reviewer": "created", "curator": "created"},
                                     method="post", data=lambda p: {"task": p.task_id}),
    "api/vge/episodes/<int:pk>/": PlaytestRow(pt("/api/vge/episodes/{running}/"),
                                              {**AUTHOR_ONLY, "anonymous": "refused"}),
    "api/vge/episodes/<int:pk>/act/": PlaytestRow(pt("/api/vge/episodes/{running}/act/"),
                                                  {**AUTHOR_ONLY, "anonymous": "refused"}, method="post",
                                                  data=lambda p: {"output": "Action: Wait()"}),
    "api/vge/episodes/act/": PlaytestRow(pt("/api/vge/episodes/act/"), {**AUTHOR_ONLY, "anonymous": "refused"},
                                         method="post", status_of=_first_result_status,
                                         data=lambda p: {"actions": [{"episode": p.running,
                                                                      "output": "Action: Wait()"}]}),
    "api/vge/episodes/<int:pk>/view.png": PlaytestRow(pt("/api/vge/episodes/{running}/view.png"),
                                                      {**AUTHOR_ONLY, "anonymous": "refused"}),
    "devicelab/drafts/<int:pk>/playtest/": PlaytestRow(
        pt("/devicelab/drafts/{draft}/playtest/"), LAB_PLAYERS, method="post"),
    # its photos lie under media/private, which is never served
    "media/<path:path>": PlaytestRow(pt("/media/{photo}"), dict.fromkeys(ROLES, HIDDEN)),
}
PLAYTEST_UNREACHED = {
    "simulator/player/replay-name/": "a player's own setting, no device",
    "simulator/baseline/": "the baseline set is a split's tasks; a play-test task is in no split",
    "simulator/baseline/next/": "the baseline set is a split's tasks",
    "simulator/baseline/refresh/": "the baseline set is a split's tasks",
    "simulator/replay/submission/<int:submission_id>/<int:index>/": "a scored upload's episodes are a split's tasks",
    "simulator/replay/submission/<int:submission_id>/<int:index>/view/<int:turn>.png": "as above",
    "api/vge/submissions/": "bundles the caller's episodes on a split's tasks",
    "ws:ws/vge/episodes/<int:pk>/": "tests/devicelab/test_playtest_access.py (the play socket)",
    "ws:ws/vge/agent/": "tests/devicelab/test_playtest_access.py (the agent socket's start)",
}


def test_every_simulator_route_has_a_playtest_row():
    reaching = [r for r in routes() if r.startswith(("simulator/", "api/vge/", "ws:ws/vge/"))]
    missing = [r for r in reaching if r not in PLAYTEST_TABLE and r not in PLAYTEST_UNREACHED]
    stale = [r for r in [*PLAYTEST_TABLE, *PLAYTEST_UNREACHED] if r not in routes()]
    assert not missing, f"routes without a play-test row: {missing}"
    assert not stale, f"play-test rows for routes that no longer exist: {stale}"


def test_a_playtest_device_reaches_only_its_author_reviewers_and_curators(settings, tmp_path, django_user_model):
    settings.SAM_EMBEDDING_DIR = tmp_path / "embeddings"
    world = world_build(tmp_path=tmp_path, user_model=django_user_model)
    playtest = playtest_build(users=world.users)
    failures: list[str] = []
    for route, row in PLAYTEST_TABLE.items():
        for role in ROLES:
            client = Client(raise_request_exception=False)
            if role != "anonymous":
                client.force_login(world.users[role])
            url = row.url(playtest)
            data = row.data(playtest) if row.data else None
            response = (client.post(url, data, content_type="application/json") if data is not None
                        else getattr(client, row.method)(url))
            status = row.status_of(response) if row.status_of else response.status_code
            want = row.expected[role]
            if status not in PT_STATUS[want]:
                failures.append(f"{route} as {role}: {status}, expected {want} ({url})")
                continue
            location = response.get("Location", "")
            if want == LOGIN and "/login/" not in location:
                failures.append(f"{route} as {role}: redirected to {location}")
            if want == PLAYS and not location.startswith(("/simulator/episodes/", "/simulator/play/")):
                failures.append(f"{route} as {role}: redirected to {location}, not to an episode")
            if want in (LISTED, UNLISTED) and (playtest.device_id.encode() in _body(response)) != (want == LISTED):
                failures.append(f"{route} as {role}: the device is {'not ' if want == LISTED else ''}listed")
    assert not failures, "\n".join(failures)
