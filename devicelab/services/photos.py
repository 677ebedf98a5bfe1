"""A view's photo (uploaded and checked as annotation images are: a known format, upright by its EXIF orientation,
within the size limits) and the box a click proposes on it (annotation's segmentation: SAM or the classical
backend, from the image's cached embedding)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.core import rle as rle_core
from annotation.models import Embedding
from annotation.services.errors import AnnotationError
from annotation.services.projects import images_upload
from annotation.services.segmentation import image_segment
from devicelab.core import drafts as draft_core
from devicelab.core.boxes import BoxError, box_check, mask_box, to_scale
from devicelab.models import DeviceDraft, ViewPhoto
from devicelab.services.drafts import can_edit_draft, draft_checks_json, draft_edit
from devicelab.services.errors import DeviceLabError

ZIP_MAGIC = b"PK\x03\x04"


def view_photo_set(*, user: AbstractBaseUser, draft_id: int, version: int | None, view: str, name: str,
                   data: bytes, unlock: tuple[str, Sequence[int]] | None = None) -> DeviceDraft:
    """One photo for one view (replacing the view's photo); the dashboard close-up also gives its region on its
    parent view. A bad photo is refused with the view and the field named; nothing is stored then."""
    field = f"photos.{view}"
    try:
        draft_core.view_kind(view)
        if unlock is not None:
            box_check(list(unlock[1]), field="views.dashboard.unlock.box")
    except draft_core.DraftError as exc:
        raise DeviceLabError(str(exc), field="view") from None
    except BoxError as exc:
        raise DeviceLabError(f"{exc.field} (view dashboard): {exc}", field=exc.field) from None
    return _photo_store(user=user, draft_id=draft_id, version=version, view=view, state="", field=field, name=name,
                        data=data, file_stem=view, note=f"photo of view {view}",
                        change=lambda d, file_name: draft_core.view_set(d, view=view, image=file_name, unlock=unlock))


def state_photo_set(*, user: AbstractBaseUser, draft_id: int, version: int | None, state: str, view: str,
                    name: str, data: bytes) -> DeviceDraft:
    """How a view looks in one state, where its appearance changes (a lit lamp, an open door): the player shows it
    on that view while the device is in that state. Checked as a view's photo."""
    return _photo_store(user=user, draft_id=draft_id, version=version, view=view, state=state,
                        field=f"states.{state}.look.photos.{view}", name=name, data=data, file_stem=f"{state}-{view}",
                        note=f"photo of {view} in state {state}",
                        change=lambda d, file_name: draft_core.state_photo_set(d, state=state, view=view,
                                                                              image=file_name))


def _photo_store(*, user: AbstractBaseUser, draft_id: int, version: int | None, view: str, state: str, field: str,
                 name: str, data: bytes, file_stem: str, note: str,
                 change: Callable[[Any, str], Any]) -> DeviceDraft:
    """One photo, checked as annotation images are (one image, its size bounded, EXIF orientation applied), stored
    as the draft's file `<file_stem>.<ext>` by the edit `change(definition, file_name)`, with the draft's checks
    computed again once the photo's row exists. `state` "": the view's own photo."""
    if data[:4] == ZIP_MAGIC:
        raise DeviceLabError(f"{field}: one photo{'' if state else ' per view'}, not an archive ({name})", field=field)
    draft = DeviceDraft.objects.filter(pk=draft_id).first()
    if draft is None or not can_edit_draft(user, draft):
        raise DeviceLabError("You are not assigned to this device.", status=403)
    with transaction.atomic():
        try:
            upload = images_upload(user=user, name=name, data=data)
        except AnnotationError as exc:
            raise DeviceLabError(f"{field} (view {view}): {exc.message}", field=field, status=exc.status) from None
        image = upload.images[0]
        file_name = f"{file_stem}.{image.file.name.rsplit('.', 1)[-1]}"
        draft = draft_edit(user=user, draft_id=draft_id, version=version, note=note,
                           change=lambda d: change(d, file_name))
        ViewPhoto.objects.update_or_create(draft=draft, view=view, state=state, defaults={"image": image})
        draft.checks = draft_checks_json(draft)  # computed before the photo's row: again, with it
        draft.save(update_fields=["checks"])
    return draft


def photo_file_name(draft: DeviceDraft, photo: ViewPhoto) -> str | None:
    """The file name the definition gives a photo (a view's `image`, or a state's `look.photos`)."""
    return draft_core.photo_file(draft.definition, view=photo.view, state=photo.state)


@dataclass(frozen=True)
class Proposal:
    box: tuple[int, int, int, int] | None  # on the 0..1000 scale of the view; None: nothing found there
    score: float
    backend: str
    pending: Embedding | None = None  # the embedding is still being computed: ask again


def component_propose(*, user: AbstractBaseUser, draft_id: int, view: str, x: int, y: int) -> Proposal:
    """A click at (x, y) (0..1000 of the view's photo): the best mask there, as a box on the 0..1000 scale."""
    draft = DeviceDraft.objects.filter(pk=draft_id).first()
    if draft is None or not can_edit_draft(user, draft):
        raise DeviceLabError("You are not assigned to this device.", status=403)
    photo = draft.photos.select_related("image").filter(view=view, state="").first()
    if photo is None:
        raise DeviceLabError(f"view {view!r} has no photo yet", field="view")
    for name, value in (("x", x), ("y", y)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
            raise DeviceLabError(f"{name} must be an integer in 0..1000 (a point on view {view}), got {value!r}",
                                 field=name)
    image = photo.image
    point = [x * image.width / 1000, y * image.height / 1000, 1]
    found = image_segment(image=image, points=[point], box=None, multimask=True, mask_input=None)
    if isinstance(found, Embedding):
        return Proposal(None, 0.0, "", pending=found)
    if not found.masks:
        return Proposal(None, 0.0, found.backend)
    best = max(found.masks, key=lambda m: m.score)
    pixels = mask_box(rle_core.decode(best.rle))
    return Proposal(None if pixels is None else to_scale(pixels, image.width, image.height), best.score, found.backend)
