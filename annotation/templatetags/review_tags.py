"""Template helpers of the review workflow used inside issue 7's editor template."""
from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join

from annotation.core.epic import leaf_for
from annotation.models import AuditEvent, Item
from annotation.review.selectors import review_comments_for_editor

register = template.Library()


@register.simple_tag
def review_notes(item):
    """The reviews that sent this item back (current cycle), shown to the annotator while it can be edited."""
    if item.state not in (Item.State.NEEDS_REVISION, Item.State.IN_PROGRESS):
        return []
    return review_comments_for_editor(item)


@register.simple_tag
def reopen_note(item):
    """Why a curator reopened the item (a correction), while it waits for the annotator."""
    if item.state != Item.State.NEEDS_REVISION:
        return None
    event = AuditEvent.objects.filter(item=item).order_by("-pk").first()
    return event if event and event.action == "reopen" else None


@register.simple_tag
def review_marker_svg(item, review):
    """A small picture of image 1 (or 2) with the reviewer's numbered markers."""
    images = {link.index: link.image for link in item.item_images.select_related("image")}
    parts = []
    for index in sorted({m["image"] for m in review.markers}):
        image = images.get(index)
        if image is None:
            continue
        circles = format_html_join(
            "", '<circle cx="{}" cy="{}" r="{}" fill="#ffdc00" stroke="#000" stroke-width="{}"/>'
                '<text x="{}" y="{}" font-size="{}" text-anchor="middle" dominant-baseline="middle">{}</text>',
            ((m["x"], m["y"], max(image.width, image.height) / 60, max(image.width, image.height) / 400, m["x"],
              m["y"], max(image.width, image.height) / 70, n + 1)
             for n, m in enumerate(review.markers) if m["image"] == index),
        )
        parts.append(format_html(
            '<svg class="review-marker-svg" viewBox="0 0 {} {}" width="100%" role="img" '
            'aria-label="Markers on image {}">'
            '<image href="/api/annotation/images/{}/file/" width="{}" height="{}"/>{}</svg>',
            image.width, image.height, index + 1, image.pk, image.width, image.height, circles,
        ))
    return format_html_join("", "{}", ((p,) for p in parts))


@register.filter
def leaf_label(name: str, leaf_path: str) -> str:
    """`{{ name|leaf_label:item.project.leaf }}`: the label the editor gives a field or masklet, not its raw key."""
    name = str(name)
    try:
        return leaf_for(leaf_path).name_label(name.removeprefix("texts."))  # a diff names texts "texts.<field>"
    except KeyError:
        return str(name)
