"""Annotation writes: projects, uploads, assignment, embeddings, segmentation, saving and submitting items, export,
and the one way an item's state changes (`item_transition`, also used by the review services).

Each service loads, calls annotation.core, saves. Checks that can refuse raise `AnnotationError` (with an HTTP
status and the field it is about) before anything is changed.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.roles import ANNOTATOR, REVIEWER, is_annotator, is_curator
from annotation import tasks
from annotation.core import edits as edit_core
from annotation.core import export as export_core
from annotation.core import images as image_core
from annotation.core import rle as rle_utils
from annotation.core.epic import LEAVES, Leaf, leaf_for
from annotation.core.lint import Finding, LintInput, LintOptions, lint
from annotation.core.review import Action, TransitionError, transition
from annotation.core.segmentation import MaskProposal, PromptError
from annotation.embeddings import (
    backend_model_key,
    browser_decoder_file,
    browser_decoder_fingerprint,
    embedding_cache,
    embedding_load,
    segmentation_backend,
)
from annotation.models import AuditEvent, Embedding, Image, Item, ItemImage, ItemRevision, Project
from annotation.selectors import can_use_image_for_review
from scoring.errors import ServiceRefusal


class AnnotationError(ServiceRefusal):
    """A refusal of the annotation services (the editor's socket and the review pages catch these)."""


# --- permissions ----------------------------------------------------------------------------------


def can_edit_item(user: AbstractBaseUser | None, item: Item) -> bool:
    return is_curator(user) or (is_annotator(user) and item.assignee_id == user.pk)


def can_use_image(user: AbstractBaseUser | None, image: Image) -> bool:
    if is_curator(user):
        return True
    if not user or not user.is_authenticated:
        return False
    return (image.uploaded_by_id == user.pk or Item.objects.filter(item_images__image=image, assignee=user).exists()
            # issue 8: the blind second annotator of an item, and its reviewers while it is in review
            or can_use_image_for_review(user=user, image=image))


# --- projects and uploads -------------------------------------------------------------------------


def project_create(
    *, user: AbstractBaseUser, name: str, slug: str, leaf: str, description: str = "", instructions: str = "",
    forbid_mask_when_infeasible: bool = False,
) -> Project:
    if not is_curator(user):
        raise AnnotationError("Only curators create annotation projects.", status=403)
    if leaf not in LEAVES:
        raise AnnotationError(f"Unknown EPIC leaf {leaf!r}.", field="leaf")
    if Project.objects.filter(slug=slug).exists():
        raise AnnotationError(f"A project with slug {slug!r} exists already.", field="slug", status=409)
    return Project.objects.create(
        name=name, slug=slug, leaf=leaf, description=description, instructions=instructions,
        forbid_mask_when_infeasible=forbid_mask_when_infeasible, created_by=user,
    )


@dataclass(frozen=True)
class UploadResult:
    images: list[Image]
    items: list[Item]


def images_upload(*, user: AbstractBaseUser, name: str, data: image_core.Upload,
                  project: Project | None = None) -> UploadResult:
    """Check the whole upload first (core), then store all of it in one transaction, or nothing.

    `data` may be the open uploaded file: a zip is then read from it (on disk for large uploads), not from memory.
    """
    if not (is_curator(user) or is_annotator(user)):
        raise AnnotationError("Only annotators and curators upload images.", status=403)
    if project is not None and not is_curator(user):
        raise AnnotationError("Only curators add items to a project.", status=403)
    if (size := image_core.upload_size(data)) > settings.SAM_UPLOAD_MAX_BYTES:
        raise AnnotationError(f"{name}: the upload is {size} bytes, over the limit of {settings.SAM_UPLOAD_MAX_BYTES}",
                              field="file", status=413)
    try:
        files = image_core.read_upload(
            name, data, max_pixels=settings.SAM_MAX_IMAGE_PIXELS, max_files=settings.SAM_UPLOAD_MAX_FILES,
            max_bytes=settings.SAM_UPLOAD_MAX_BYTES, max_image_bytes=settings.SAM_UPLOAD_MAX_IMAGE_BYTES,
            max_total_pixels=settings.SAM_UPLOAD_MAX_TOTAL_PIXELS,
        )
        groups = (
            image_core.group_into_items(files, images_per_item=leaf_for(project.leaf).images) if project else []
        )
    except image_core.UploadError as exc:
        raise AnnotationError(str(exc), field="file") from None
    stored: list[Image] = []
    saved_paths: list[str] = []
    try:
        with transaction.atomic():
            by_hash: dict[str, Image] = {}
            for image_file in files:
                # The same bytes from the same person are stored once (embeddings are shared by hash anyway).
                image = by_hash.get(image_file.sha256) or Image.objects.filter(
                    sha256=image_file.sha256, uploaded_by=user
                ).first()
                if image is None:
                    image = Image(
                        original_name=image_file.name[:500], sha256=image_file.sha256, width=image_file.width,
                        height=image_file.height, format=image_file.format, uploaded_by=user,
                    )
                    image.file.save(f"{image_file.sha256[:16]}.{image_file.extension}", ContentFile(image_file.data),
                                    save=False)
                    saved_paths.append(image.file.name)
                    if image_file.original is not None:  # turned upright by its EXIF orientation: keep the upload
                        image.original.save(f"{image_file.sha256[:16]}-original.{image_file.extension}",
                                            ContentFile(image_file.original), save=False)
                        saved_paths.append(image.original.name)
                    image.save()
                by_hash[image_file.sha256] = image
                stored.append(image)
            items: list[Item] = []
            if project is not None:
                start = (project.items.aggregate(m=Max("position"))["m"] or 0) + 1
                for offset, group in enumerate(groups):
                    base = Path(group[0].name).stem if len(group) == 1 else (Path(group[0].folder).name or "item")
                    item = Item.objects.create(project=project, name=base[:200], position=start + offset,
                                               updated_by=user)
                    for index, image_file in enumerate(group):
                        ItemImage.objects.create(item=item, image=by_hash[image_file.sha256], index=index)
                    item_revision_create(item, ItemRevision.Kind.CREATE, user, note=f"from upload {name}")
                    items.append(item)
    except BaseException:
        # The rows rolled back; the files written before the failure go too, so nothing is half-imported.
        for path in saved_paths:
            default_storage.delete(path)
        raise
    return UploadResult(stored, items)


def items_assign(*, user: AbstractBaseUser, items: Sequence[Item], assignee: AbstractBaseUser | None) -> int:
    if not is_curator(user):
        raise AnnotationError("Only curators assign items.", status=403)
    if assignee is not None and not (is_annotator(assignee) or is_curator(assignee)):
        raise AnnotationError(f"{assignee} is not in the annotator group.", field="assignee")
    with transaction.atomic():
        for item in items:
            item.assignee = assignee
            item.save(update_fields=["assignee", "updated_at"])
            item_revision_create(item, ItemRevision.Kind.ASSIGN, user, note=f"assigned to {assignee or 'nobody'}")
    return len(items)


# --- embeddings and segmentation (the backend and the worker's computation: annotation.embeddings) ---------


def embedding_request(*, image: Image, retry_failed: bool = False) -> Embedding:
    """The embedding row of the image for the configured backend; queues a computation when there is none.

    A failed computation is queued again only when asked (opening the item), not on every status poll."""
    model_key = backend_model_key()
    row, created = Embedding.objects.get_or_create(image=image, model_key=model_key)
    if embedding_cache().has(image.sha256, model_key):
        if row.status != Embedding.Status.READY:
            row.status, row.progress, row.error = Embedding.Status.READY, 100, ""
            row.save(update_fields=["status", "progress", "error"])
        return row
    stale_ready = row.status == Embedding.Status.READY  # the cache was cleared: compute again
    if created or stale_ready or (retry_failed and row.status == Embedding.Status.FAILED):
        row.status, row.progress, row.error = Embedding.Status.QUEUED, 0, ""
        row.save(update_fields=["status", "progress", "error"])
        queue = settings.SAM_EMBEDDING_QUEUE or None  # None: the default queue every worker reads
        transaction.on_commit(lambda: tasks.compute_embedding.apply_async((row.pk,), queue=queue))
    return row


@dataclass(frozen=True)
class SegmentResult:
    masks: list[MaskProposal]
    backend: str
    ms: float


def image_segment(
    *, image: Image, points: Sequence[Sequence[float]], box: Sequence[float] | None, multimask: bool,
    mask_input: Mapping[str, Any] | None,
) -> SegmentResult | Embedding:
    """Proposals from the cached embedding, or the (queued/running) embedding row when there is none yet."""
    started = time.perf_counter()
    model_key = backend_model_key()
    embedding = embedding_load(image.sha256, model_key)
    if embedding is None:
        row = embedding_request(image=image)
        if row.status == Embedding.Status.FAILED:
            raise AnnotationError(f"The image embedding failed: {row.error}", status=503, field="embedding")
        return row
    backend = segmentation_backend()
    try:
        proposals = backend.segment(embedding, points=points, box=box, multimask=multimask, mask_input=mask_input)
    except PromptError as exc:
        raise AnnotationError(str(exc), field=exc.field) from None
    return SegmentResult(proposals, backend.name, (time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class BrowserEmbedding:
    """What the editor needs to run SAM's decoder itself: the float16 features and the frame they are in."""

    features: bytes  # little-endian float16, C order
    shape: tuple[int, ...]
    image_size: tuple[int, int]  # (H, W)
    input_size: tuple[int, int]  # (h, w) of the resized image inside the 1024 frame


def browser_decoder_url() -> str | None:
    """Where the editor downloads the configured SAM model's ONNX decoder; None for the classical backend."""
    if not settings.SAM_BROWSER_DECODER or not backend_model_key().startswith("sam-"):
        return None
    fingerprint = browser_decoder_fingerprint()
    return f"/api/annotation/decoders/{backend_model_key()}/{fingerprint}.onnx" if fingerprint else None


def browser_decoder_info(*, image: Image, row: Embedding) -> dict[str, Any] | None:
    """URLs for the browser decoder when it can run on this image (SAM, embedding ready), else None."""
    if row.status != Embedding.Status.READY or (url := browser_decoder_url()) is None:
        return None
    return {"decoder_url": url, "features_url": f"/api/annotation/images/{image.pk}/embedding/features/"}


def browser_embedding(*, image: Image) -> BrowserEmbedding:
    """The image's cached SAM features for the browser decoder; 404 while there are none."""
    model_key = backend_model_key()
    embedding = embedding_load(image.sha256, model_key) if settings.SAM_BROWSER_DECODER else None
    if embedding is None or browser_decoder_fingerprint() is None:
        raise AnnotationError(f"No {model_key} embedding of image {image.pk} for the browser decoder (yet).",
                              status=404, field="embedding")
    features = np.ascontiguousarray(embedding.features, dtype="<f2")
    return BrowserEmbedding(features.tobytes(), tuple(features.shape), embedding.image_size, embedding.input_size)


def browser_decoder(*, model_key: str, fingerprint: str) -> Path:
    """The ONNX decoder file named by the editor's URL; 404 when it is not the configured model's."""
    if not settings.SAM_BROWSER_DECODER or model_key != backend_model_key() or fingerprint != browser_decoder_fingerprint():
        raise AnnotationError(f"No browser decoder {model_key}/{fingerprint} on this server.", status=404)
    path = browser_decoder_file()
    if path is None:
        raise AnnotationError("The configured segmentation backend has no browser decoder.", status=404)
    return path


def item_open(*, user: AbstractBaseUser, item: Item) -> list[Embedding]:
    """Queue embeddings for this item's images and, ahead of time, for the user's next items."""
    rows = [embedding_request(image=image, retry_failed=True) for image in item_images(item)]
    upcoming = (
        Item.objects.filter(project=item.project, assignee=item.assignee or user, position__gt=item.position)
        .exclude(state__in=[Item.State.ACCEPTED, Item.State.PUBLISHED, Item.State.REJECTED])
        .order_by("position")[: settings.SAM_PREFETCH_ITEMS]
    )
    for other in upcoming:
        for image in other.images.all():
            embedding_request(image=image, retry_failed=True)
    return rows


# --- saving, linting, submitting ------------------------------------------------------------------

EDITABLE_STATES = (Item.State.TODO, Item.State.IN_PROGRESS, Item.State.NEEDS_REVISION)


def item_images(item: Item) -> list[Image]:
    return [link.image for link in item.item_images.select_related("image").order_by("index")]


def item_lint_input(item: Item) -> LintInput:
    leaf = leaf_for(item.project.leaf)
    return LintInput(
        leaf=leaf,
        image_sizes=tuple((image.height, image.width) for image in item_images(item)),
        texts={k: v if isinstance(v, str) else str(v) for k, v in (item.texts or {}).items()},
        count=item.count,
        precise_count=item.precise_count,
        count_in_description=item.count_in_description,
        placement_feasible=item.placement_feasible,
        instances=item.instances or {},
    )


def item_lint(item: Item) -> list[Finding]:
    return lint(item_lint_input(item), LintOptions(forbid_mask_when_infeasible=item.project.forbid_mask_when_infeasible))


def findings_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [
        {"code": f.code, "severity": f.severity.value, "message": f.message, "field": f.field, "instance": f.instance}
        for f in findings
    ]


def _snapshot(item: Item) -> dict[str, Any]:
    return {
        "texts": item.texts, "count": item.count, "precise_count": item.precise_count,
        "count_in_description": item.count_in_description, "placement_feasible": item.placement_feasible,
        "instances": item.instances,
    }


def item_revision_create(item: Item, kind: str, user: AbstractBaseUser | None, note: str = "") -> ItemRevision:
    """One entry of the item's history: its version, state and labels as they are now."""
    return ItemRevision.objects.create(
        item=item, version=item.version, kind=kind, author=user, state=item.state, snapshot=_snapshot(item), note=note
    )


GRANTABLE_ROLES = (ANNOTATOR, REVIEWER)


def role_set(*, user: AbstractBaseUser, project: Project, username: str, role: str, give: bool) -> AbstractBaseUser:
    """A curator gives or takes the annotator or reviewer role (site-wide groups), from a project's page."""
    if not is_curator(user):
        raise AnnotationError("Only curators give or take roles.", status=403)
    if role not in GRANTABLE_ROLES:
        raise AnnotationError(f"Unknown role {role!r}; curators give {' or '.join(GRANTABLE_ROLES)}.", field="role")
    person = get_user_model().objects.filter(username=username.strip()).first()
    if person is None:
        raise AnnotationError(f"No user {username.strip()!r}.", field="username")
    group, _ = Group.objects.get_or_create(name=role)
    if give:
        person.groups.add(group)
    else:
        if role == ANNOTATOR and Item.objects.filter(project=project, assignee=person).exclude(
                state__in=[Item.State.ACCEPTED, Item.State.PUBLISHED, Item.State.REJECTED]).exists():
            raise AnnotationError(f"{person.get_username()} still has open items in {project.name}; assign them "
                                  "to someone else first.", status=409, field="username")
        person.groups.remove(group)
    audit_record(item=None, project=project, actor=user, action="role_give" if give else "role_take",
                 detail={"user": person.get_username(), "role": role})
    return person


def audit_record(*, item: Item | None, actor: AbstractBaseUser | None, action: str, from_state: str = "",
                 to_state: str = "", detail: Mapping[str, Any] | None = None,
                 project: Project | None = None) -> AuditEvent:
    """One entry of the audit trail: who did what, when (an item's event, or a project's without an item)."""
    return AuditEvent.objects.create(
        item=item, project=project or (item.project if item else None), actor=actor, action=action,
        from_state=from_state, to_state=to_state, version=item.version if item else None, detail=dict(detail or {}),
    )


def item_transition(
    *, item: Item, action: Action, actor: AbstractBaseUser | None, kind: str = ItemRevision.Kind.STATE,
    note: str = "", detail: Mapping[str, Any] | None = None, content_changed: bool = False,
) -> None:
    """The one way an item's state changes: the core state machine checks the move on the locked item; a new
    state (or `content_changed`: the caller changed other fields too) makes a new version, saved with a
    revision of `kind`; then the audit trail records the move. A save that keeps the state is no event (its
    revision is the record); a review pass that keeps the state is one."""
    before = item.state
    try:
        after = transition(before, action)
    except TransitionError as exc:
        raise AnnotationError(f"Item {item.pk}: {exc}.", status=409, field="state") from None
    changed = after != before
    if changed or content_changed:
        # A new version: a tab still holding the old one must reload (and then sees the reviewers' comments).
        item.state = after
        item.version += 1
        item.updated_by = actor
        if content_changed:
            item.save()
        else:
            item.save(update_fields=["state", "version", "updated_by", "updated_at"])
        item_revision_create(item, kind, actor, note=note)
    if changed or action is not Action.SAVE:
        audit_record(item=item, actor=actor, action=action.value, from_state=before, to_state=after, detail=detail)


def instances_check(leaf: Leaf, images: list[Image], instances: Any) -> dict[str, list[dict[str, Any]]]:
    """The masks of an editor's save, normalized, or AnnotationError naming the masklet and the RLE at fault."""
    if not isinstance(instances, Mapping):
        raise AnnotationError("instances must be an object {masklet: [RLE, ...]}", field="instances")
    checked: dict[str, list[dict[str, Any]]] = {}
    for name, rles in instances.items():
        try:
            spec = leaf.masklet(name)
        except KeyError as exc:
            raise AnnotationError(str(exc.args[0]), field=f"instances.{name}") from None
        if not isinstance(rles, list):
            raise AnnotationError(f"instances.{name} must be a list of RLEs", field=f"instances.{name}")
        image = images[spec.image_index]
        out = []
        for index, rle in enumerate(rles):
            where = f"instances.{name}[{index}]"
            try:
                height, width = rle_utils.size_of(rle)  # the declared size, checked before decoding
                if (height, width) != (image.height, image.width):
                    raise AnnotationError(
                        f"{where}: mask is {width}x{height}, image {spec.image_index + 1} is "
                        f"{image.width}x{image.height}", field=where,
                    )
                normalized = rle_utils.normalize(rle)
            except rle_utils.RleError as exc:
                raise AnnotationError(f"{where}: {exc}", field=where) from None
            out.append(normalized)
        checked[name] = out
    return checked


def edits_check(checked: Mapping[str, list[dict[str, Any]]], edits: Any) -> None:
    """The server judges the editor's brush, eraser, polygon and fill edits: for each instance that lists them
    ({masklet: [null | {"base": RLE, "ops": [edit, ...]}]}, one entry per instance), the edits are replayed on
    the base with annotation/core/edits.py and the instance's mask must be the result, pixel for pixel; else
    AnnotationError naming the instance, the pixels that differ and the first of them."""
    if not isinstance(edits, Mapping):
        raise AnnotationError("edits must be an object {masklet: [null or {base, ops}, ...]}", field="edits")
    for name, logs in edits.items():
        masks = checked.get(name)
        if masks is None:
            raise AnnotationError(f"edits.{name}: instances has no layer {name!r}", field=f"edits.{name}")
        if not isinstance(logs, list) or len(logs) != len(masks):
            raise AnnotationError(f"edits.{name} must list one entry (null, or the edits) per instance of "
                                  f"instances.{name} ({len(masks)})", field=f"edits.{name}")
        for index, log in enumerate(logs):
            if log is None:
                continue
            where = f"edits.{name}[{index}]"
            if not isinstance(log, Mapping) or not isinstance(log.get("ops"), list):
                raise AnnotationError(f"{where} must be null or {{base: RLE, ops: [edit, ...]}}", field=where)
            try:
                base = rle_utils.normalize(log.get("base"))
            except (rle_utils.RleError, TypeError, AttributeError) as exc:
                raise AnnotationError(f"{where}.base: {exc}", field=f"{where}.base") from None
            if tuple(base["size"]) != tuple(masks[index]["size"]):
                raise AnnotationError(f"{where}.base: size {base['size']} is not the mask's {masks[index]['size']}",
                                      field=f"{where}.base")
            try:
                result = edit_core.apply_edits(rle_utils.decode(base), log["ops"])
            except edit_core.EditError as exc:
                raise AnnotationError(f"{where}: {exc}", field=where) from None
            difference = edit_core.first_difference(result, rle_utils.decode(masks[index]))
            if difference is not None:
                count, (x, y) = difference
                raise AnnotationError(
                    f"instances.{name}[{index}] is not what its {len(log['ops'])} edit(s) give: {count} pixel(s) "
                    f"differ, the first at x={x}, y={y}", field=where, extra={"pixels": count, "first": [x, y]},
                )


def _item_to_edit(user: AbstractBaseUser, item_id: int) -> Item:
    """The item, locked for this transaction, if `user` may edit it (404 when it was deleted since the view looked)."""
    item = Item.objects.select_for_update().select_related("project").filter(pk=item_id).first()
    if item is None:
        raise AnnotationError("No such item.", status=404)
    if not can_edit_item(user, item):
        raise AnnotationError("You are not assigned to this item.", status=403)
    return item


def item_save(
    *, user: AbstractBaseUser, item_id: int, version: int, texts: Mapping[str, Any] | None = None,
    count: int | None = None, precise_count: bool = False, count_in_description: bool = False,
    placement_feasible: bool | None = None, instances: Mapping[str, Any] | None = None,
    edits: Mapping[str, Any] | None = None,
) -> Item:
    """Save the editor's whole state if `version` is the current one; returns the item with version + 1. The edits
    the editor made with its tools, when sent, are replayed and must give the masks sent (`edits_check`)."""
    with transaction.atomic():
        item = _item_to_edit(user, item_id)
        if item.version != version:
            raise AnnotationError(
                f"The item changed since you loaded it (your version {version}, current {item.version}). "
                "Reload to see the other change.", status=409, field="version", extra={"version": item.version},
            )
        if item.state not in EDITABLE_STATES:
            raise AnnotationError(f"The item is {item.get_state_display().lower()} and cannot be edited.", status=409)
        leaf = leaf_for(item.project.leaf)
        texts = dict(texts or {})
        unknown = sorted(set(texts) - set(leaf.text_fields))
        if unknown:
            raise AnnotationError(f"{leaf.path} has no text field {unknown[0]!r}", field=f"texts.{unknown[0]}")
        if count is not None and count < 0:
            raise AnnotationError("count must be 0 or more", field="count")
        checked = instances_check(leaf, item_images(item), instances or {})
        edits_check(checked, edits or {})
        item.instances = checked
        item.texts = {k: v for k, v in texts.items() if v not in (None, "")}
        item.count = count
        item.precise_count = bool(precise_count)
        item.count_in_description = bool(count_in_description)
        item.placement_feasible = placement_feasible
        item.findings = findings_json(item_lint(item))
        # to do / needs revision -> in progress; in progress stays
        item_transition(item=item, action=Action.SAVE, actor=user, kind=ItemRevision.Kind.SAVE, content_changed=True)
    return item


def item_submit(*, user: AbstractBaseUser, item_id: int, version: int, override_reason: str = "") -> Item:
    """Send the item for review; linter findings block it unless overridden with a reason."""
    with transaction.atomic():
        item = _item_to_edit(user, item_id)
        if item.version != version:
            raise AnnotationError(
                f"The item changed since you loaded it (your version {version}, current {item.version}).",
                status=409, field="version", extra={"version": item.version},
            )
        if item.state not in EDITABLE_STATES:
            raise AnnotationError(f"The item is {item.get_state_display().lower()} already.", status=409)
        findings = findings_json(item_lint(item))
        reason = override_reason.strip()
        if findings and not reason:
            raise AnnotationError(
                f"The linter found {len(findings)} problem(s); fix them or give a reason to override.",
                field="override_reason", extra={"findings": findings},
            )
        item.findings = findings
        item.override_reason = reason if findings else ""
        item.submitted_at = timezone.now()
        item_transition(
            item=item, action=Action.SUBMIT, actor=user, kind=ItemRevision.Kind.SUBMIT, note=item.override_reason,
            detail={"override_reason": item.override_reason} if item.override_reason else {}, content_changed=True,
        )
    return item


def item_overlay_set(*, user: AbstractBaseUser, item_id: int, name: str, data: bytes) -> Item:
    """Attach the reference overlay the model will be shown (exported instead of a rendered one)."""
    with transaction.atomic():
        item = _item_to_edit(user, item_id)
        leaf = leaf_for(item.project.leaf)
        if leaf.overlay is None:
            raise AnnotationError(f"{leaf.path} has no reference overlay.", field="file")
        try:
            overlay = image_core.read_image(name, data, max_pixels=settings.SAM_MAX_IMAGE_PIXELS)
        except image_core.UploadError as exc:
            raise AnnotationError(str(exc), field="file") from None
        if overlay.format != "PNG":
            raise AnnotationError(f"{name}: the overlay must be a PNG (the toolkit's {leaf.overlay.suffix})",
                                  field="file")
        first = item_images(item)[0]
        if (overlay.width, overlay.height) != (first.width, first.height):
            raise AnnotationError(
                f"{name}: overlay is {overlay.width}x{overlay.height}, image 1 is {first.width}x{first.height}",
                field="file",
            )
        item.overlay.save(f"{overlay.sha256[:16]}.png", ContentFile(data), save=False)
        item.version += 1
        item.updated_by = user
        item.save()
        item_revision_create(item, ItemRevision.Kind.SAVE, user, note=f"reference overlay {name}")
    return item


# --- export ---------------------------------------------------------------------------------------


def item_export_files(*, item: Item) -> list[export_core.ExportFile]:
    leaf = leaf_for(item.project.leaf)
    images = item_images(item)
    payloads = []
    for image in images:
        with image.file.open("rb") as handle:
            payloads.append(export_core.ExportImage(image_core.ALLOWED_FORMATS[image.format], handle.read()))
    overlay = None
    if item.overlay:
        with item.overlay.open("rb") as handle:
            overlay = handle.read()
    decoded = image_core.decode_rgb(payloads[0].data) if leaf.overlay is not None and overlay is None else None
    export_item = export_core.ExportItem(
        leaf=leaf, sample=f"{item.project.slug}-{item.pk:06d}", images=tuple(payloads), texts=item.texts or {},
        count=item.count, precise_count=item.precise_count, count_in_description=item.count_in_description,
        placement_feasible=item.placement_feasible, instances=item.instances or {}, overlay_png=overlay,
    )
    return export_core.export_files(export_item, decoded_first_image=decoded)


def project_export(*, project: Project, root: Path, states: Sequence[str] | None = None) -> list[Path]:
    """Write every item (optionally only those in `states`) of the project under root/EPIC_Bench/..."""
    items = project.items.all()
    if states:
        items = items.filter(state__in=states)
    written: list[Path] = []
    for item in items:
        written += export_core.write_files(item_export_files(item=item), root)
    return written
