"""Pages about scorer versions and frozen boards (issue 29): what moved between two scorer versions (the diff page),
the curators' re-score page, and citable snapshots with their exports. Thin: parse, ask the selectors or a service,
render; refusals are the site's ServiceRefusal (its error page)."""
from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.roles import is_curator
from leaderboard import services_snapshots, versions
from leaderboard.board_views import error_page, resolve_board, split_params
from leaderboard.core.citation import SnapshotCitation, bibtex
from leaderboard.core.diff import summary
from leaderboard.models import BoardSnapshot
from scoring import rescore, tasks
from scoring.errors import ServiceRefusal
from scoring.models import Benchmark, RescoreItem, RescoreRun, Submission


@require_GET
def board_diff(request: HttpRequest, slug: str) -> HttpResponse:
    """Every row whose score or rank moved between two scorer versions of one split version's board, by how much."""
    resolved, error = resolve_board(request, slug)
    if error:
        return error
    benchmark, split, _, _ = resolved
    known = [v.version for v in versions.scorer_versions(split=split)]
    old = request.GET.get("from") or (known[-2] if len(known) > 1 else "")
    new = request.GET.get("to") or (known[-1] if known else "")
    for name, value in (("from", old), ("to", new)):
        if value and value not in known:
            return error_page(request, 400, f"Bad parameter '{name}': no scores of this board were made under "
                                            f"'{value[:60]}'; versions: {', '.join(known) or 'none'}")
    rows = versions.board_diff(split=split, old=old, new=new) if old and new and old != new else []
    base = split_params(request, split)
    return render(request, "leaderboard/diff.html", {
        "benchmark": benchmark, "split": split, "old": old, "new": new, "known": known, "rows": rows,
        "counts": summary(rows), "base": urlencode(base),
        "board_old": reverse("board", args=[slug]) + "?" + urlencode({**base, "scorer": old}),
        "board_new": reverse("board", args=[slug]) + "?" + urlencode({**base, "scorer": new}),
        "comparable_version": versions.comparable_version(split=split),
    })


@login_required
def board_rescore(request: HttpRequest, slug: str) -> HttpResponse:
    """Curators: which scores an older scorer made, the runs under way and done, and a button to start one."""
    if not is_curator(request.user):
        raise Http404("No such page.")
    benchmark = get_object_or_404(Benchmark, slug=slug)
    if request.method == "POST" and request.POST.get("onto"):
        target = benchmark.splits.filter(pk=request.POST["onto"]).first() if request.POST["onto"].isdigit() else None
        if target is None:
            raise ServiceRefusal(f"No split {request.POST['onto'][:40]!r} of {benchmark.slug}.", field="onto")
        run = rescore.rescore_split_version_start(split=target, user=request.user, reason=RescoreRun.Reason.CURATOR,
                                                  enqueue=tasks.rescore_item_enqueue)
        messages.success(request, f"Re-score #{run.pk} started: {run.items.count()} submission(s) of the previous "
                                  f"version to score on {target}.")
        return redirect("board-rescore", slug=benchmark.slug)
    if request.method == "POST":
        split = None
        if request.POST.get("split"):
            split = benchmark.splits.filter(pk=request.POST["split"]).first() if request.POST["split"].isdigit() \
                else None
            if split is None:
                raise ServiceRefusal(f"No split {request.POST['split'][:40]!r} of {benchmark.slug}.", field="split")
        run = rescore.rescore_run_start(benchmark=benchmark, split=split, user=request.user,
                                        force=request.POST.get("force") == "1", enqueue=tasks.rescore_item_enqueue)
        total = run.items.count()
        messages.success(request, f"Re-score #{run.pk} started: {total} submission(s) to re-score."
                         if total else "Every score already bears the current scorer version: nothing to re-score.")
        return redirect("board-rescore", slug=benchmark.slug)
    version = rescore.declared_version(benchmark)
    runs = [(run, rescore.run_progress(run=run),
             run.items.filter(state=RescoreItem.State.FAILED).select_related("submission__model_entry")[:50])
            for run in benchmark.rescore_runs.select_related("split", "target_split", "started_by")[:20]]
    return render(request, "leaderboard/rescore.html", {
        "benchmark": benchmark, "version": version, "runs": runs,
        "out_of_date": rescore.out_of_date_count(benchmark=benchmark, version=version),
        "open_run": rescore.open_run(benchmark=benchmark), "splits": benchmark.splits.all(),
        "versioned": [(s, Submission.objects.filter(rescore.to_carry(split=s)).count())
                      for s in benchmark.splits.filter(version__gt=1)],
    })


def board_snapshots(request: HttpRequest, slug: str) -> HttpResponse:
    """The benchmark's frozen snapshots; curators freeze the board as its query string shows it (POST)."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        # the board's own parsing and checks, on the parameters of the board being frozen
        resolved, error = resolve_board(request, slug, params=QueryDict(request.POST.get("board", "")[:2000]))
        if error:
            return error
        _, split, _, query = resolved
        snapshot = services_snapshots.snapshot_create(
            user=request.user, benchmark=benchmark, split=split, query=query,
            name=request.POST.get("name", "")[:100], title=request.POST.get("title", "")[:200])
        return redirect("board-snapshot", slug=benchmark.slug, name=snapshot.name)
    board = request.GET.urlencode()
    return render(request, "leaderboard/snapshots.html", {
        "benchmark": benchmark, "snapshots": benchmark.snapshots.select_related("split", "created_by"),
        "board": board, "board_filters": parse_qsl(board), "can_freeze": is_curator(request.user),
    })


@require_GET
def board_snapshot(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    snapshot = get_object_or_404(BoardSnapshot.objects.select_related("benchmark", "split"), benchmark__slug=slug,
                                 name=name)
    document = json.loads(snapshot.document)
    url = request.build_absolute_uri(reverse("board-snapshot", args=[slug, name]))
    citation = bibtex(SnapshotCitation(
        benchmark_slug=slug, benchmark_name=snapshot.benchmark.name, snapshot_name=name, split=snapshot.split.name,
        split_version=snapshot.split.version, scorer_version=snapshot.scorer_version, url=url,
        content_sha256=snapshot.content_sha256, frozen_on=services_snapshots.snapshot_frozen_on(snapshot),
        title=snapshot.title))
    return render(request, "leaderboard/snapshot.html", {
        "snapshot": snapshot, "benchmark": snapshot.benchmark, "columns": document["columns"],
        "rows": [[row.get(c) for c in document["columns"]] for row in document["rows"]],
        "citation": citation, "newer": services_snapshots.snapshot_newer_scores(snapshot=snapshot),
        "live_board": reverse("board", args=[slug]) + "?" + urlencode(
            {"split": snapshot.split.name, "split_version": snapshot.split.version}),
    })


@require_GET
def board_snapshot_export(request: HttpRequest, slug: str, name: str, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "json"):
        return error_page(request, 404, f"No snapshot format '{fmt[:20]}': use snapshot.csv or snapshot.json.")
    snapshot = get_object_or_404(BoardSnapshot, benchmark__slug=slug, name=name)
    body = snapshot.csv if fmt == "csv" else snapshot.document
    content_type = "text/csv; charset=utf-8" if fmt == "csv" else "application/json"
    response = HttpResponse(body.encode(), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{slug}-snapshot-{name}.{fmt}"'
    response["X-Content-SHA256"] = snapshot.csv_sha256 if fmt == "csv" else snapshot.content_sha256
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response
