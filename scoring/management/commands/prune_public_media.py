"""`python manage.py prune_public_media [--apply] [--orphans]`: list (by default) or remove the stale public copies
of hidden splits' images under the benchmarks' public image folders, MEDIA_ROOT/public/<folder>/ (the rules are in
`scoring/stale_media.py`). Run it when no import or publishing is under way."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from scoring.stale_media import stale_public_media, stale_public_media_remove


class Command(BaseCommand):
    help = ("Remove public copies of hidden splits' images that no public split names (a dry run that lists them "
            "unless --apply).")

    def add_arguments(self, parser):
        parser.add_argument("--apply", action="store_true", help="remove the files (default: only list them)")
        parser.add_argument("--orphans", action="store_true",
                            help="also remove files there that nothing names but are not known to be a hidden "
                                 "split's images (e.g. of a deleted split)")

    def handle(self, *args, apply: bool, orphans: bool, **kw):
        found = stale_public_media(orphans=orphans)
        for who, names in sorted(found.still_named.items()):
            self.stdout.write(f"kept: {len(names)} file(s) under public/ still named by {who}, e.g. {names[0]}; "
                              f"{found.actions[who]}, then run this again")
        if found.orphans_left:
            size = sum(f.size for f in found.orphans_left)
            self.stdout.write(f"left: {len(found.orphans_left)} file(s) ({size} bytes) that nothing names but are not "
                              "known to be a hidden split's images; --orphans removes them too")
        for name in found.skipped:
            self.stdout.write(f"skipped: {name} (a symbolic link or not a plain file; never followed or removed)")
        if not apply:
            for file in found.remove:
                self.stdout.write(f"would remove {file.name} ({file.size} bytes)")
            self.stdout.write(f"Dry run: {len(found.remove)} file(s), {found.remove_bytes} bytes would be removed"
                              + ("; run again with --apply to remove them." if found.remove else "."))
            return
        removed = stale_public_media_remove(found=found)
        for file in removed.files:
            self.stdout.write(f"removed {file.name} ({file.size} bytes)")
        for folder in removed.folders:
            self.stdout.write(f"removed empty folder {folder}/")
        self.stdout.write(f"Removed {len(removed.files)} file(s), {removed.bytes} bytes, and "
                          f"{len(removed.folders)} empty folder(s).")
