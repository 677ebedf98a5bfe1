"""Annotation reads for pages and the API."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, QuerySet

from accounts.roles import ANNOTATOR, CURATOR, REVIEWER, curators_q, is_curator, is_reviewer
from annotation.models import Image, Item, Project, SecondOpinion


def projects_for_user(*, user: AbstractBaseUser) -> QuerySet[Project]:
    projects = Project.objects.annotate(
        item_count=Count("items", distinct=True),
        done_count=Count("items", filter=Q(items__state__in=["submitted", "accepted", "published"]), distinct=True),
    )
    if is_curator(user):
        return projects
    return projects.filter(items__assignee=user).distinct()


def items_for_user(*, user: AbstractBaseUser, project: Project) -> QuerySet[Item]:
    items = project.items.select_related("assignee").prefetch_related("item_images__image")
    return items if is_curator(user) else items.filter(assignee=user)


# Items whose work is over: the queue skips them (the Next button and the embeddings prefetched ahead).
DONE_STATES = (Item.State.ACCEPTED, Item.State.PUBLISHED, Item.State.REJECTED)


def queue_after(*, item: Item, limit: int) -> list[Item]:
    """The next `limit` open items of `item`'s assignee in its project, in the order the editor's Next button takes
    them (position, then id: items of one upload share no position, but a tie must not skip an item)."""
    if limit <= 0:
        return []
    after = Q(position__gt=item.position) | Q(position=item.position, pk__gt=item.pk)
    return list(
        Item.objects.filter(after, project_id=item.project_id, assignee_id=item.assignee_id)
        .exclude(state__in=DONE_STATES)
        .order_by("position", "pk")[:limit]
    )


def next_item(*, item: Item) -> Item | None:
    following = queue_after(item=item, limit=1)
    return following[0] if following else None


def can_use_image_for_review(*, user: AbstractBaseUser, image: Image) -> bool:
    """Reviewers see the images of items in review; a blind second annotator those of their open task."""
    if SecondOpinion.objects.filter(annotator=user, status=SecondOpinion.Status.ASSIGNED,
                                    item__item_images__image=image).exists():
        return True
    return is_reviewer(user) and Item.objects.filter(item_images__image=image, state=Item.State.SUBMITTED).exists()


def people_with_roles() -> list[tuple[str, list[str]]]:
    """(username, [annotator/reviewer/curator roles]) of everyone who has one, for the curators' role form."""
    users = (get_user_model().objects.filter(Q(groups__name__in=[ANNOTATOR, REVIEWER, CURATOR]) | Q(is_staff=True))
             .distinct().order_by("username").prefetch_related("groups"))
    out = []
    for user in users:
        names = {g.name for g in user.groups.all()} | ({CURATOR} if user.is_staff else set())
        out.append((user.get_username(), [r for r in (ANNOTATOR, REVIEWER, CURATOR) if r in names]))
    return out


def curator_names(*, limit: int = 5) -> list[str]:
    """Who can assign items (named on the page an annotator sees for an item that is not theirs)."""
    users = get_user_model().objects.filter(curators_q()).distinct().order_by("username")
    return [user.get_username() for user in users[:limit]]
