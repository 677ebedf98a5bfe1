"""A draft's way out: its tasks (the VGE generator on the draft's machine) with their instructions and optimal
lengths, a play-test in the simulator's browser player, submission, review rounds (two approvals by different
reviewers, issues marked on a view), publishing into a VGE split (versioned), and the `vge-device/1` export with
its photos (loadable by `import_vge`)."""
from __future__ import annotations

import io
import json
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.roles import is_curator, is_reviewer
from devicelab.core.boxes import SCALE, BoxError, box_check
from devicelab.core.checks import ERROR
from devicelab.models import DeviceDraft, DevicePublication, DraftReview, DraftRevision
from devicelab.services.drafts import can_edit_draft, draft_checks_json, draft_to_edit, revision_create
from devicelab.services.errors import DeviceLabError
from devicelab.services.photos import photo_file_name
from scoring.benchmarks.vge.core.device import Device as CoreDevice
from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.graphs import INF, DeviceGraphs
from scoring.benchmarks.vge.core.library import hash_seed
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from scoring.benchmarks.vge.core.task_defs import generate_tasks
from simulator.models import Task
from simulator.playtests import PLAYTEST_SOURCE
from simulator.services.library import device_upsert, split_ensure, task_upsert, tasks_into_split

REVIEW_ROUNDS = 2
TASKS_PER_DEVICE = 6
TASK_SEED = 33


def draft_device(draft: DeviceDraft, *, device_id: str | None = None) -> CoreDevice:
    """The draft as a VGE device, or a refusal naming its first problem's JSON path."""
    data = {**draft.definition, "id": device_id or draft.device_id}
    try:
        return load_device(data, source=draft.device_id)
    except DeviceInvalid as exc:
        first = exc.problems[0] if exc.problems else None
        raise DeviceLabError(f"The device is not complete yet: {exc}", field=first.path if first else None) from None


@dataclass(frozen=True)
class TaskPreview:
    task: CoreTask
    l_opt: int

    @property
    def steps(self) -> list[tuple[str, str]]:
        return list(zip(self.task.goals, self.task.instructions))


def tasks_preview(draft: DeviceDraft, *, device_id: str | None = None) -> list[TaskPreview]:
    """Loop-free goal sequences from the draft's machine (the VGE generator), each with its optimal length."""
    device = draft_device(draft, device_id=device_id)
    graphs = DeviceGraphs(device)
    out = []
    for task in generate_tasks(device, seed=hash_seed(TASK_SEED, device.id), count=TASKS_PER_DEVICE):
        l_opt = graphs.l_opt((graphs.chain[task.start_state][0], task.start_view, False), task.goals)
        out.append(TaskPreview(task, int(l_opt) if l_opt != INF else -1))
    return out


def _images_install(draft: DeviceDraft, device_id: str, *, public: bool) -> str:
    """The photos copied where the simulator reads a device's view images; returns that folder (under MEDIA_ROOT).
    The simulator reads them from disk for its player and API; only a public split's go under media/public (served
    to anyone), a play-test's and a hidden split's under media/private (never served as files)."""
    folder = f"{'public' if public else 'private'}/vge/devices/{device_id}"
    target = Path(settings.MEDIA_ROOT) / folder
    target.mkdir(parents=True, exist_ok=True)
    for photo in draft.photos.select_related("image"):
        name = photo_file_name(draft, photo)
        if name:
            with photo.image.file.open("rb") as source, open(target / Path(name).name, "wb") as out:
                shutil.copyfileobj(source, out)
    return folder


def playtest_install(*, user: AbstractBaseUser, draft_id: int) -> Task:
    """The draft as it is now, installed as a device of its own (in no split, never scored) with its first task:
    what the browser player opens for a play-test before the draft is submitted."""
    draft = DeviceDraft.objects.filter(pk=draft_id).first()
    if draft is None:
        raise DeviceLabError("No such device draft.", status=404)
    if not (can_edit_draft(user, draft) or is_reviewer(user)):
        raise DeviceLabError("Only the device's annotator, reviewers and curators play-test it.", status=403)
    device_id = draft.playtest_device_id
    previews = tasks_preview(draft, device_id=device_id)
    if not previews:
        raise DeviceLabError("The machine gives no task yet: add transitions to states a player can reach.",
                             field="states")
    with transaction.atomic():
        data = {**draft.definition, "id": device_id}
        device_upsert(data=data, source=PLAYTEST_SOURCE, images_dir=_images_install(draft, device_id, public=False))
        task = task_upsert(task=previews[0].task)
        if can_edit_draft(user, draft):  # the author's play-test of this version (a reviewer's changes nothing)
            DeviceDraft.objects.filter(pk=draft.pk, version=draft.version).update(playtested_version=draft.version)
        return task


def draft_submit(*, user: AbstractBaseUser, draft_id: int, version: int) -> DeviceDraft:
    """Submit for review: no check may be an error, the machine must give tasks, and the author must have
    play-tested this very version in the browser player."""
    with transaction.atomic():
        draft = draft_to_edit(user, draft_id, version)
        checks = draft_checks_json(draft)
        errors = [c for c in checks if c["level"] == ERROR]
        if errors:
            first = errors[0]
            where = f" (view {first['view']})" if first["view"] else ""
            raise DeviceLabError(f"{len(errors)} check(s) still fail; first: {first['path']}{where}: "
                                 f"{first['message']}", field=first["path"] or None, status=409)
        if not tasks_preview(draft):
            raise DeviceLabError("The machine gives no task yet.", field="states", status=409)
        if draft.playtested_version != draft.version:
            raise DeviceLabError(f"Play-test version {draft.version} in the player before submitting it "
                                 "(the device changed since its last play-test, or was never played).", status=409)
        draft.state = DeviceDraft.State.SUBMITTED
        draft.review_round = 0
        draft.checks = checks
        draft.submitted_at = timezone.now()
        draft.save()
        revision_create(draft, DraftRevision.Kind.SUBMIT, user)
    return draft


MAX_ISSUES = 50


def point_check(value: object, *, field: str) -> list[int]:
    """A point on a view's photo: [x, y], integers within 0..1000 (the boxes' scale)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise BoxError(field, f"a point is two integers [x, y], got {value!r}")
    if min(value) < 0 or max(value) > SCALE:
        raise BoxError(field, f"point {list(value)} lies outside its image (0..{SCALE})")
    return list(value)


def issues_check(draft: DeviceDraft, issues: Any) -> list[dict[str, Any]]:
    """Issues a reviewer marks: [{view, box? | point?, text}], each on a view of the device, drawn where it was
    marked (a box or a point, 0..1000 of the view's photo) for the reviewer and the author."""
    if not isinstance(issues, list):
        raise DeviceLabError("issues must be a list of {view, box? or point?, text}", field="issues")
    if len(issues) > MAX_ISSUES:
        raise DeviceLabError(f"issues: at most {MAX_ISSUES} in one review, got {len(issues)}", field="issues")
    out = []
    for i, issue in enumerate(issues):
        path = f"issues[{i}]"
        if not isinstance(issue, dict) or not str(issue.get("text", "")).strip():
            raise DeviceLabError(f"{path}: an issue needs its text", field=f"{path}.text")
        view = issue.get("view")
        if view not in draft.definition.get("views", {}):
            raise DeviceLabError(f"{path}.view: the device has no view {view!r}", field=f"{path}.view")
        item: dict[str, Any] = {"view": view, "text": str(issue["text"]).strip()}
        if issue.get("box") is not None and issue.get("point") is not None:
            raise DeviceLabError(f"{path}: an issue is marked by a box or a point, not both", field=f"{path}.point")
        try:
            if issue.get("box") is not None:
                item["box"] = list(box_check(issue["box"], field=f"{path}.box"))
            if issue.get("point") is not None:
                item["point"] = point_check(issue["point"], field=f"{path}.point")
        except BoxError as exc:
            raise DeviceLabError(f"{exc.field} (view {view}): {exc}", field=exc.field) from None
        out.append(item)
    return out


def may_review(user: AbstractBaseUser | None, draft: DeviceDraft) -> bool:
    """A reviewer who did not author it, while it waits for review."""
    return bool(is_reviewer(user) and user is not None and draft.state == DeviceDraft.State.SUBMITTED
                and draft.assignee_id != user.pk)


def draft_review(*, user: AbstractBaseUser, draft_id: int, verdict: str, note: str = "",
                 issues: Any = ()) -> DraftReview:
    """One review round. Approvals by REVIEW_ROUNDS different reviewers accept the draft; "revise" sends it back
    to its annotator (the rounds start again after the next submission); "reject" ends it."""
    if not is_reviewer(user):
        raise DeviceLabError("Only reviewers review devices.", status=403)
    if verdict not in DraftReview.Verdict.values:
        raise DeviceLabError(f"verdict {verdict!r}: one of {', '.join(DraftReview.Verdict.values)}", field="verdict")
    with transaction.atomic():
        draft = DeviceDraft.objects.select_for_update().filter(pk=draft_id).first()
        if draft is None:
            raise DeviceLabError("No such device draft.", status=404)
        if draft.state != DeviceDraft.State.SUBMITTED:
            raise DeviceLabError(f"The device is {draft.get_state_display().lower()}, not waiting for review.",
                                 status=409)
        if draft.assignee_id == user.pk:
            raise DeviceLabError("You authored this device: another reviewer reviews it.", status=403)
        checked = issues_check(draft, list(issues))
        if verdict != DraftReview.Verdict.APPROVE and not (note.strip() or checked):
            raise DeviceLabError("Say what to change: a note or an issue on a view.", field="note")
        earlier = draft.reviews.filter(version=draft.version, verdict=DraftReview.Verdict.APPROVE,
                                       created_at__gte=draft.submitted_at)
        if verdict == DraftReview.Verdict.APPROVE and earlier.filter(reviewer=user).exists():
            raise DeviceLabError("You approved this version already: the next round is another reviewer's.",
                                 status=409)
        review = DraftReview.objects.create(draft=draft, version=draft.version, round=draft.review_round + 1,
                                            reviewer=user, verdict=verdict, note=note.strip(), issues=checked)
        if verdict == DraftReview.Verdict.APPROVE:
            draft.review_round += 1
            if draft.review_round >= REVIEW_ROUNDS:
                draft.state = DeviceDraft.State.ACCEPTED
        elif verdict == DraftReview.Verdict.REVISE:
            draft.state, draft.review_round = DeviceDraft.State.NEEDS_REVISION, 0
        else:
            draft.state = DeviceDraft.State.REJECTED
        draft.save()
        revision_create(draft, DraftRevision.Kind.REVIEW, user, note=f"round {review.round}: {verdict}")
    return review


def draft_publish(*, user: AbstractBaseUser, draft_id: int, split_name: str, public: bool) -> DevicePublication:
    """An accepted draft into a VGE split (made when missing; hidden ground truth unless public), as its next
    published version: the device (its photos as the view images) and its tasks as the split's samples."""
    if not is_curator(user):
        raise DeviceLabError("Only curators publish devices.", status=403)
    split_name = split_name.strip()
    if not split_name or not set(split_name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_"):
        raise DeviceLabError(f"split {split_name!r}: use lower-case letters, digits, - and _", field="split")
    with transaction.atomic():
        draft = DeviceDraft.objects.select_for_update().filter(pk=draft_id).first()
        if draft is None:
            raise DeviceLabError("No such device draft.", status=404)
        if draft.state != DeviceDraft.State.ACCEPTED:
            raise DeviceLabError(f"The device is {draft.get_state_display().lower()}; only an accepted device "
                                 f"(approved in {REVIEW_ROUNDS} review rounds) is published.", status=409)
        tasks = [p.task for p in tasks_preview(draft)]
        split = split_ensure(name=split_name, public=public)
        if split.hidden_ground_truth == public:
            raise DeviceLabError(f"Split {split_name!r} exists already and is "
                                 f"{'hidden' if split.hidden_ground_truth else 'public'}.", field="public", status=409)
        device = device_upsert(data=dict(draft.definition), source="devicelab",
                               images_dir=_images_install(draft, draft.device_id, public=public))
        tasks_into_split(tasks=tasks, split=split)
        version = draft.publications.count() + 1
        publication = DevicePublication.objects.create(draft=draft, version=version, split=split, device=device,
                                                       definition=draft.definition, tasks=len(tasks),
                                                       published_by=user)
        draft.state = DeviceDraft.State.PUBLISHED
        draft.save(update_fields=["state", "updated_at"])
        revision_create(draft, DraftRevision.Kind.PUBLISH, user, note=f"version {version} into {split}")
    return publication


def draft_export(draft: DeviceDraft) -> bytes:
    """A zip: `<id>/<id>.json` (`vge-device/1`, views naming their photos), the photos next to it and the tasks as
    `<id>/tasks.jsonl`; unzipped, `python manage.py import_vge <folder>` loads it."""
    device = draft_device(draft)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{device.id}/{device.id}.json", json.dumps(draft.definition, indent=1, ensure_ascii=False))
        for photo in draft.photos.select_related("image"):
            name = photo_file_name(draft, photo)
            if name:
                with photo.image.file.open("rb") as handle:
                    archive.writestr(f"{device.id}/{name}", handle.read())
        lines = [json.dumps(p.task.as_dict()) for p in tasks_preview(draft)]
        archive.writestr(f"{device.id}/tasks.jsonl", "\n".join(lines) + "\n")
    return buffer.getvalue()
