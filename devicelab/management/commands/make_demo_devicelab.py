"""Author one device from drawn photos through the device lab's real code paths (photos, click-proposed boxes,
pruning, each state's look as overlays on the photos, tasks, play-test install, submit, two review rounds, publish into the split `lab-demo`). Idempotent: an
existing demo device is left as it is. Prints how long each step took."""
from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from accounts.roles import ANNOTATOR, CURATOR, REVIEWER
from annotation.embeddings import embedding_compute
from devicelab.core import demo_photos
from devicelab.core import drafts as draft_core
from devicelab.models import DeviceDraft, DeviceProject
from devicelab.selectors import draft_authoring
from devicelab.services import drafts as draft_services
from devicelab.services import photos as photo_services
from devicelab.services import review as review_services

DEVICE_ID = "heater-lab-demo"
OVERLAYS = {"front": ["thermostat", "light"], "top": ["power_switch"]}  # what tells the heater's states apart


def _person(name: str, group: str):
    user, _ = get_user_model().objects.get_or_create(username=name)
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        if DeviceDraft.objects.filter(device_id=DEVICE_ID).exists():
            self.stdout.write(f"{DEVICE_ID} exists already.")
            return
        curator, annotator = _person("lab-curator", CURATOR), _person("lab-annotator", ANNOTATOR)
        reviewers = _person("lab-reviewer-1", REVIEWER), _person("lab-reviewer-2", REVIEWER)
        started = time.perf_counter()
        project = DeviceProject.objects.filter(slug="lab-demo").first() or draft_services.project_create(
            user=curator, name="Lab demo devices", slug="lab-demo")
        draft = draft_services.draft_create(user=curator, project=project, category="Heater", device_id=DEVICE_ID,
                                            assignee=annotator)
        for view in ("front", "top"):
            draft = photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=draft.version, view=view,
                                                  name=f"{view}.png", data=demo_photos.photo(view))
        for component in demo_photos.CONTROLS:
            view, x, y = demo_photos.centre(component)
            proposal = photo_services.component_propose(user=annotator, draft_id=draft.pk, view=view, x=x, y=y)
            if proposal.pending is not None:  # the worker's job, run here so the demo needs no worker
                embedding_compute(embedding_id=proposal.pending.pk)
                proposal = photo_services.component_propose(user=annotator, draft_id=draft.pk, view=view, x=x, y=y)
            if proposal.box is None:
                self.stderr.write(f"no proposal for {component}; using the drawn box")
            box = proposal.box or demo_photos.CONTROLS[component][1]
            draft = draft_services.box_set(user=annotator, draft_id=draft.pk, version=draft.version,
                                           component=component, view=view, box=list(box),
                                           proposed_by=proposal.backend)
            self.stdout.write(f"  {component} on {view}: {list(box)} ({proposal.backend or 'drawn'})")
        draft = draft_services.machine_prune(user=annotator, draft_id=draft.pk, version=draft.version)
        for state in draft.definition["states"]:  # each state's look drawn over the photos: dial, lamp, switch
            for view, components in OVERLAYS.items():
                draft = draft_services.draft_edit(
                    user=annotator, draft_id=draft.pk, version=draft.version, note=f"overlays of {view} in {state}",
                    change=lambda d, s=state, v=view, c=components: draft_core.overlays_set(d, state=s, view=v,
                                                                                            components=c))
        errors = [c for c in draft.checks if c["level"] == "error"]
        for check in draft.checks:
            self.stdout.write(f"  check {check['level']}: {check['path']} {check['message']}")
        if errors:
            self.stderr.write("the demo device has errors; stopped before submitting")
            return
        previews = review_services.tasks_preview(draft)
        for preview in previews:
            self.stdout.write(f"  task {preview.task.id}: L_opt {preview.l_opt}: {' / '.join(preview.task.instructions)}")
        playtest = review_services.playtest_install(user=annotator, draft_id=draft.pk)
        authored = time.perf_counter() - started
        draft = review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
        for reviewer in reviewers:
            review_services.draft_review(user=reviewer, draft_id=draft.pk, verdict="approve")
        publication = review_services.draft_publish(user=curator, draft_id=draft.pk, split_name="lab-demo",
                                                    public=True)
        recorded = draft_authoring(draft)["total"]
        self.stdout.write(f"  recorded authoring time: {recorded.seconds:.1f} s active over {recorded.edits} saves "
                          f"({recorded.sessions} session(s); the time between one person's saves)")
        self.stdout.write(self.style.SUCCESS(
            f"{DEVICE_ID}: {len(previews)} tasks; play-test /simulator/play/{playtest.task_id}/; published version "
            f"{publication.version} into {publication.split}; authored in {authored:.1f} s of machine time "
            f"(total {time.perf_counter() - started:.1f} s)"))
