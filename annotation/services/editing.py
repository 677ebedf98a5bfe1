"""The editor's writes: saving an item's labels and masks (checked, and its edits replayed), linting, submitting it
for review, its reference overlay."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from annotation import tasks
from annotation.core import edits as edit_core
from annotation.core import images as image_core
from annotation.core import provenance as provenance_core
from annotation.core import rle as rle_utils
from annotation.core.epic import Leaf, leaf_for
from annotation.core.lint import Finding, LintInput, LintOptions, lint
from annotation.core.review import Action
from annotation.models import Image, Item, ItemRevision
from annotation.services.errors import AnnotationError
from annotation.services.honeypots import gold_check_record
from annotation.services.permissions import can_edit_item
from annotation.services.transitions import item_revision_create, item_transition

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


def provenance_check(leaf: Leaf, images: list[Image], checked: Mapping[str, list[dict[str, Any]]],
                     provenance: Any) -> dict[str, list[dict[str, Any] | None]]:
    """How each mask of the save was made, checked (annotation/core/provenance.py) and aligned with the instances:
    a layer the editor sent none for keeps null entries (made before provenance was recorded, or by an API client
    that does not say); else AnnotationError naming the JSON path at fault."""
    sizes = {m.name: (images[m.image_index].height, images[m.image_index].width) for m in leaf.masklets}
    try:
        given = provenance_core.check_provenance(
            provenance, instance_counts={name: len(masks) for name, masks in checked.items()}, image_sizes=sizes)
    except provenance_core.ProvenanceError as exc:
        raise AnnotationError(str(exc), field=exc.field) from None
    return {name: given.get(name, [None] * len(masks)) for name, masks in checked.items() if masks}


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
    edits: Mapping[str, Any] | None = None, provenance: Mapping[str, Any] | None = None,
) -> Item:
    """Save the editor's whole state if `version` is the current one; returns the item with version + 1. The edits
    the editor made with its tools, when sent, are replayed and must give the masks sent (`edits_check`); the
    masks' provenance is checked and kept beside them (`provenance_check`)."""
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
        images = item_images(item)
        checked = instances_check(leaf, images, instances or {})
        edits_check(checked, edits or {})
        item.provenance = provenance_check(leaf, images, checked, provenance or {})
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
        if item.honeypot_of_id is not None:
            gold_check_record(copy=item, annotator=user)
        # The model's own proposal from the stored prompts, on the worker that holds the model (consensus).
        queue = settings.SAM_EMBEDDING_QUEUE or None
        submitted = (item.pk, item.version)
        transaction.on_commit(lambda: tasks.check_consensus.apply_async(submitted, queue=queue))
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
