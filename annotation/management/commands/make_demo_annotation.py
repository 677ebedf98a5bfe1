"""`python manage.py make_demo_annotation`: a demo annotation project (TL Color) with drawn scenes to try the editor.

Idempotent: the project and its items are made once. A curator assigns the items to annotators (project page).
"""
import io
import zipfile

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from PIL import Image as PILImage

from annotation.models import Project
from annotation.services.projects import images_upload, project_create
from scoring.benchmarks.epic.core import demo

SLUG = "demo-color"
LEAF = "TargetLocalization/BasicAttributes/Color"
SEED = 11
ITEMS = 6


def _png(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    PILImage.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        if Project.objects.filter(slug=SLUG).exists():
            self.stdout.write(f"annotation demo: project {SLUG} exists")
            return
        curator, _ = get_user_model().objects.get_or_create(
            username="demo-curator", defaults={"is_active": False, "is_staff": True}
        )
        project = project_create(
            user=curator, name="Demo: colour targets", slug=SLUG, leaf=LEAF,
            description="Drawn scenes from the EPIC demo generator; mark every object of the described colour.",
        )
        scenes = demo.make_split(SEED, per_leaf=0, counts={"Color": ITEMS}, sizes=((480, 640), (720, 1280)))
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as zf:
            for sample in scenes:
                for name, pixels in sample.images.items():
                    zf.writestr(f"{name.rsplit('.', 1)[0]}.png", _png(pixels))
        result = images_upload(user=curator, name="demo-color.zip", data=archive.getvalue(), project=project)
        self.stdout.write(f"annotation demo: project {SLUG} with {len(result.items)} items")
