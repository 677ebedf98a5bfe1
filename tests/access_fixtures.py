"""Objects for the route × role table (tests/test_access_table.py): six roles, and an EPIC split of each kind
(public, hidden) with one scored submission by the owner, its images, and the hidden ground truth's own strings."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from devicelab.core import demo_photos
from devicelab.services import drafts as draft_services
from devicelab.services import photos as photo_services
from devicelab.services import review as review_services
from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import ModelEntry, Sample, Split, Submission
from simulator.services.episodes import episode_give_up, episode_start

ROLES = ("anonymous", "other", "owner", "annotator", "reviewer", "curator")
GROUPS = {"annotator": "annotator", "reviewer": "reviewer", "curator": "curator"}


@dataclass
class Variant:
    """One split and what the table's URLs name on it."""

    split: Split
    submission: Submission
    image_url: str
    image_bytes: bytes
    secrets: tuple[str, ...] = ()  # strings of the ground truth that no page may print to a non-curator


@dataclass
class World:
    users: dict[str, object]
    variants: dict[str, Variant] = field(default_factory=dict)


def rle_counts(value) -> list[str]:
    if isinstance(value, dict):
        own = [value["counts"]] if isinstance(value.get("counts"), str) and len(value["counts"]) >= 12 else []
        return own + [c for v in value.values() for c in rle_counts(v)]
    if isinstance(value, list):
        return [c for v in value for c in rle_counts(v)]
    return []


def world_build(*, tmp_path: Path, user_model) -> World:
    users = {}
    for role in ROLES[1:]:
        person = user_model.objects.create_user(f"t-{role}", password=f"pw-{role}-123")
        if role in GROUPS:
            person.groups.add(Group.objects.get_or_create(name=GROUPS[role])[0])
        users[role] = person
    world = World(users=users)
    for variant, hidden, seed in (("public", False, 17), ("hidden", True, 29)):
        samples = demo.make_split(seed, per_leaf=1)  # other images than the public split's
        folder = tmp_path / variant
        demo.write_layout(folder, samples)
        split, report = epic_split_import(path=folder, split_name=f"t-{variant}", hidden=hidden)
        assert report.problems == []
        entry = ModelEntry.objects.create(name=f"Model-{variant}", slug=f"model-{variant}")
        lines = [json.dumps(demo.raw_line(s, demo.oracle_response(s), prefix="/x/")) for s in samples]
        submission = services.submission_create(
            user=users["owner"], split=split, model_entry=entry, options={"raw": True},
            uploaded_file=SimpleUploadedFile("p.jsonl", "\n".join(lines).encode()))
        assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
        submission.refresh_from_db()
        first = Sample.objects.filter(split=split).order_by("position").first()
        url = first.inputs["images"][0]["url"]
        image = (Path(settings.MEDIA_ROOT) / url[len("/media/"):]).read_bytes()
        secrets = tuple(sorted({c for s in Sample.objects.filter(split=split) for c in rle_counts(s.ground_truth)}))
        world.variants[variant] = Variant(split=split, submission=submission, image_url=url, image_bytes=image,
                                          secrets=secrets if hidden else ())
    return world


@dataclass
class Playtest:
    """A device lab draft (assigned to the table's annotator) installed for its play-test as `lab-draft-<id>`, with
    its author's running episode, a finished one and a photo's path under MEDIA_ROOT."""

    draft_id: int
    device_id: str
    task_id: str
    running: int
    finished: int
    photo_path: str


def playtest_build(*, users: dict[str, object]) -> Playtest:
    curator, author = users["curator"], users["annotator"]
    project = draft_services.project_create(user=curator, name="Lab", slug="t-lab")
    draft = draft_services.draft_create(user=curator, project=project, category="Heater", device_id="t-heater",
                                        assignee=author)
    for view in ("front", "top"):
        draft = photo_services.view_photo_set(user=author, draft_id=draft.pk, version=draft.version, view=view,
                                              name=f"{view}.png", data=demo_photos.photo(view))
    for component, (view, box, _) in demo_photos.CONTROLS.items():
        draft = draft_services.box_set(user=author, draft_id=draft.pk, version=draft.version, component=component,
                                       view=view, box=list(box))
    draft = draft_services.machine_prune(user=author, draft_id=draft.pk, version=draft.version)
    task = review_services.playtest_install(user=author, draft_id=draft.pk)
    running, _ = episode_start(user=author, task_id=task.task_id, kind="human")
    finished, _ = episode_start(user=author, task_id=task.task_id, kind="human")
    episode_give_up(episode_id=finished.pk, user=author)
    photo = next((Path(settings.MEDIA_ROOT) / task.device.images_dir).iterdir())
    return Playtest(draft_id=draft.pk, device_id=task.device.device_id, task_id=task.task_id, running=running.pk,
                    finished=finished.pk, photo_path=photo.relative_to(settings.MEDIA_ROOT).as_posix())
