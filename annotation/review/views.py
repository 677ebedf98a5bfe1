"""Review pages: the queue, the review of one pinned version, an item's history, the project dashboard (publish,
second opinions, policy, reopen), and the blind second-opinion editor with its small JSON API."""
from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.roles import annotators_q, is_curator, is_reviewer
from annotation.core.epic import leaf_for
from annotation.models import Item, Project, ReviewConfig, SecondOpinion
from annotation.review import selectors
from annotation.review import services as rs
from annotation.serializers import ImageOutput
from annotation.services.errors import AnnotationError
from annotation.services.honeypots import gold_mark, honeypots_send
from scoring.benchmarks.epic.plugin import SLUG as EPIC_SLUG
from scoring.models import Split


@login_required
def review_queue(request: HttpRequest) -> HttpResponse:
    curator = is_curator(request.user)
    return render(request, "annotation/review_queue.html", {
        "queue": selectors.review_queue(user=request.user) if is_reviewer(request.user) else [],
        "revisions": selectors.my_revisions(user=request.user),
        "opinions": selectors.my_second_opinions(user=request.user),
        "projects": Project.objects.all() if curator else [],
        "is_reviewer": is_reviewer(request.user), "curator": curator,
    })


@login_required
def review_item(request: HttpRequest, pk: int) -> HttpResponse:
    item = get_object_or_404(Item.objects.select_related("project", "assignee"), pk=pk)
    if not is_reviewer(request.user):
        raise Http404("No such item.")  # annotators never see the review page, not even of their own items
    refusal = rs.review_refusal(request.user, item)
    error, status, posted = "", 200, {}
    if request.method == "POST":
        posted = request.POST
        try:
            markers = json.loads(request.POST.get("markers") or "[]")
        except json.JSONDecodeError:
            markers = "not JSON"
        try:
            rs.review_submit(
                user=request.user, item_id=item.pk, version=int(request.POST.get("version", 0)),
                round=int(request.POST.get("round", 0)), verdict=request.POST.get("verdict", ""),
                reasons=request.POST.getlist("reasons"), comment=request.POST.get("comment", ""), markers=markers,
            )
        except AnnotationError as exc:
            error, status = exc.message, exc.status
        except ValueError:
            error, status = "version and round must be numbers.", 400
        else:
            messages.success(request, f"Review of {item} recorded.")
            return redirect("annotation-review-queue")
        item.refresh_from_db()
    elif not refusal:
        rs.review_open(user=request.user, item=item)
    context = selectors.review_context(item=item)
    return render(request, "annotation/review_item.html", {
        "item": item, "refusal": refusal, "error": error, "posted": posted, **context,
        # Issue 32: a refused verdict comes back with the reasons ticked as they were posted.
        "posted_reasons": request.POST.getlist("reasons") if posted else [],
        "findings": item.findings, "override_reason": item.override_reason,
    }, status=status)


@login_required
def item_history(request: HttpRequest, pk: int) -> HttpResponse:
    item = get_object_or_404(Item.objects.select_related("project", "assignee"), pk=pk)
    if not selectors.can_see_history(user=request.user, item=item):
        raise Http404("No such item.")
    return render(request, "annotation/review_history.html", {"item": item, **selectors.item_history(item=item)})


@login_required
def project_review(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if not is_curator(request.user):
        raise Http404("No such project.")
    status = 200
    if request.method == "POST":
        try:
            action = request.POST.get("action")
            if action == "publish":
                ids = [int(p) for p in request.POST.getlist("items")]
                split, links = rs.items_publish(
                    user=request.user, item_ids=ids, split_name=request.POST.get("split", "").strip() or "annotated",
                    hidden=request.POST.get("visibility", "hidden") == "hidden",
                    description=request.POST.get("description", ""))
                messages.success(request, f"Published {len(links)} item(s) into {split}.")
            elif action == "second_opinion":
                people = list(get_user_model().objects.filter(pk__in=request.POST.getlist("annotators")))
                created = rs.second_opinions_request(
                    user=request.user, project=project, share=float(request.POST.get("share", "0")),
                    seed=int(request.POST.get("seed") or 0), annotators=people)
                messages.success(request, f"Sent {len(created)} item(s) to a blind second annotation.")
            elif action == "policy":
                rs.review_config_set(user=request.user, project=project,
                                     rounds_required=int(request.POST.get("rounds_required", "2")),
                                     distinct_reviewers=True)
                messages.success(request, "Review policy saved.")
            elif action in ("gold", "gold_retire"):
                gold = gold_mark(user=request.user, item_id=int(request.POST.get("item", "0")),
                                 active=action == "gold")
                messages.success(request, f"Item {gold.item_id} is {'now' if gold.active else 'no longer'} gold.")
            elif action == "honeypots":
                people = list(get_user_model().objects.filter(pk__in=request.POST.getlist("annotators")))
                copies = honeypots_send(user=request.user, project=project, annotators=people,
                                        per_annotator=int(request.POST.get("per_annotator", "1")),
                                        seed=int(request.POST.get("seed") or 0))
                messages.success(request, f"Mixed {len(copies)} honeypot(s) into the annotators' queues.")
            elif action == "reopen":
                item = rs.item_reopen(user=request.user, item_id=int(request.POST.get("item", "0")),
                                      reason=request.POST.get("reason", ""))
                messages.success(request, f"Item {item.pk} sent back for a correction.")
            else:
                raise AnnotationError(f"Unknown action {action!r}.", field="action")
        except AnnotationError as exc:
            messages.error(request, exc.message)
            status = exc.status
        except (ValueError, Item.DoesNotExist) as exc:
            messages.error(request, f"Bad input: {exc}")
            status = 400
        else:
            return redirect("annotation-review-project", slug=slug)
    annotators = get_user_model().objects.filter(annotators_q()).order_by("username").distinct()
    return render(request, "annotation/review_dashboard.html", {
        "project": project, "board": selectors.project_dashboard(project=project),
        "accepted": selectors.accepted_items(project=project),
        "reopenable": project.items.filter(state__in=[Item.State.PUBLISHED, Item.State.ACCEPTED,
                                                      Item.State.REJECTED]),
        "policy": ReviewConfig.objects.filter(project=project).first() or ReviewConfig(project=project),
        "annotators": annotators,
        "splits": Split.objects.filter(benchmark__slug=EPIC_SLUG).order_by("name", "-version"),
        "opinions": SecondOpinion.objects.filter(item__project=project).select_related("item", "annotator"),
        "published_splits": selectors.published_splits(project=project),
        "gold": selectors.gold_board(project=project),
    }, status=status)


# --- the blind second-opinion editor -------------------------------------------------------------------


def _opinion_json(opinion: SecondOpinion) -> dict:
    item = opinion.item
    return {
        "id": f"second-{opinion.pk}", "name": item.name, "leaf": item.project.leaf,
        "state": "in_progress" if opinion.status == SecondOpinion.Status.ASSIGNED else "submitted",
        "version": opinion.version, "assignee": opinion.annotator.get_username(),
        "images": [ImageOutput(link.image).data for link in item.item_images.select_related("image").order_by("index")],
        "texts": {}, "count": opinion.count, "precise_count": False, "count_in_description": False,
        "placement_feasible": None, "instances": opinion.instances or {}, "findings": [], "override_reason": "",
        "has_overlay": False,
    }


def _opinion_for(request: HttpRequest, pk: int) -> SecondOpinion:
    opinion = SecondOpinion.objects.select_related("item__project", "annotator").filter(pk=pk).first()
    if opinion is None or opinion.annotator_id != request.user.pk:
        raise Http404("No such second-opinion task.")
    return opinion


@login_required
def second_opinion_editor(request: HttpRequest, pk: int) -> HttpResponse:
    opinion = _opinion_for(request, pk)
    item = opinion.item
    leaf = leaf_for(item.project.leaf)
    masklet = leaf.masklet(opinion.masklet)
    # Blind: only the image(s), the description and the layer to mark; never the first annotation or reviews.
    description = next((str(item.texts[f]) for f in leaf.text_fields if item.texts.get(f)), "")
    config = {
        "item": _opinion_json(opinion),
        "leaf": {"path": leaf.path, "family": leaf.family.value, "images": leaf.images,
                 "masklets": [{"name": masklet.name, "image": masklet.image_index, "scored": True,
                               "label": masklet.label}],
                 "text_fields": [], "count_field": leaf.count_field, "has_feasibility": False},
        "api": {"item": f"/api/annotation/second/{opinion.pk}/",
                "submit": f"/api/annotation/second/{opinion.pk}/submit/"},
        "next_item": None,
    }
    return render(request, "annotation/editor.html", {"item": item, "config": config, "leaf": leaf, "blind": True,
                                                      "blind_description": description})


@login_required
@require_http_methods(["GET", "PUT"])
def second_opinion_api(request: HttpRequest, pk: int) -> JsonResponse:
    opinion = _opinion_for(request, pk)
    if request.method == "PUT":
        try:
            body = json.loads(request.body or b"{}")
            opinion = rs.second_opinion_save(user=request.user, opinion_id=pk, version=int(body.get("version", 0)),
                                             count=body.get("count"), instances=body.get("instances") or {})
        except (json.JSONDecodeError, TypeError, ValueError):
            return JsonResponse({"detail": "The body must be JSON with version, count and instances."}, status=400)
        except AnnotationError as exc:
            return JsonResponse(exc.body(), status=exc.status)
    return JsonResponse(_opinion_json(opinion))


@login_required
@require_http_methods(["POST"])
def second_opinion_submit_api(request: HttpRequest, pk: int) -> JsonResponse:
    _opinion_for(request, pk)
    try:
        body = json.loads(request.body or b"{}")
        opinion = rs.second_opinion_submit(user=request.user, opinion_id=pk, version=int(body.get("version", 0)))
    except (json.JSONDecodeError, TypeError, ValueError):
        return JsonResponse({"detail": "The body must be JSON with the version."}, status=400)
    except AnnotationError as exc:
        return JsonResponse(exc.body(), status=exc.status)
    return JsonResponse(_opinion_json(opinion))


@login_required
def split_samples(request: HttpRequest, pk: int) -> HttpResponse:
    """The samples of one split version, each with its link back to the annotation history (curators)."""
    if not is_curator(request.user):
        raise Http404("No such split.")
    split = get_object_or_404(Split.objects.select_related("benchmark"), pk=pk)
    return render(request, "annotation/review_split.html", {
        "split": split, "samples": selectors.split_samples(split=split),
        "versions": Split.objects.filter(benchmark=split.benchmark, name=split.name).order_by("-version"),
    })
