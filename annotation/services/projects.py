"""Projects and what curators do to them: create, upload images into items, assign items, give or take roles."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max

from accounts.roles import ANNOTATOR, REVIEWER, is_annotator, is_curator
from annotation.core import images as image_core
from annotation.core.epic import LEAVES, leaf_for
from annotation.models import Image, Item, ItemImage, ItemRevision, Project
from annotation.services.editing import findings_json, item_lint
from annotation.services.errors import AnnotationError
from annotation.services.transitions import audit_record, item_revision_create


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
                    # An empty item is not clean: the editor shows what is still missing from the start (issue 32).
                    item.findings = findings_json(item_lint(item))
                    item.save(update_fields=["findings"])
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
