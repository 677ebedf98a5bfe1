"""Who may edit an item and use an image (the review app adds its own rules through annotation.selectors)."""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from accounts.roles import is_annotator, is_curator
from annotation.models import Image, Item
from annotation.selectors import can_use_image_for_review


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
