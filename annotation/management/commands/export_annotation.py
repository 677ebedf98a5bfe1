"""Export an annotation project to the EPIC toolkit's raw layout: python manage.py export_annotation SLUG OUT_DIR."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Item, Project
from annotation.services.export import project_export


class Command(BaseCommand):
    help = "Write a project's items as EPIC_Bench/<leaf>/<sample>/ folders (*_image.*, overlays, *_mask_rle.json)."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project slug")
        parser.add_argument("out", help="folder that will hold EPIC_Bench/")
        parser.add_argument("--state", action="append", choices=[s for s, _ in Item.State.choices],
                            help="only items in this state (repeatable)")

    def handle(self, *args, **options):
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            raise CommandError(f"no annotation project {options['project']!r}")
        written = project_export(project=project, root=Path(options["out"]), states=options["state"])
        self.stdout.write(f"wrote {len(written)} file(s) under {options['out']}")
