"""`python manage.py verify_provenance PROVENANCE.json [FILE] [--rescore]`: check a provenance file against the score
it names as stored on this site (every key and figure), and with FILE that the file is the one it names; with
--rescore also score the stored file again now and compare. Prints "same" or every key that differs (exit 1)."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.core import provenance as core
from scoring.errors import ServiceRefusal
from scoring.provenance import provenance_read, stored_document, submission_named, submission_rescore_differences


class Command(BaseCommand):
    help = "Check a provenance file against the stored score (and its file, and a fresh scoring with --rescore)."

    def add_arguments(self, parser):
        parser.add_argument("provenance", type=Path)
        parser.add_argument("file", type=Path, nargs="?", help="the prediction file, checked by its sha256")
        parser.add_argument("--rescore", action="store_true",
                            help="also score the stored file again now, by the benchmark's own scorer")

    def handle(self, *args, provenance: Path, file: Path | None, rescore: bool, **kw):
        try:
            claimed = provenance_read(text=provenance.read_bytes())
            submission = submission_named(claimed=claimed)
            stored = stored_document(submission=submission, ground_truth_visible=True)
        except OSError as exc:
            raise CommandError(f"{provenance}: {exc.strerror}") from None
        except ServiceRefusal as exc:
            raise CommandError(f"{provenance}: {exc.message}") from None
        differences = core.differences(claimed, stored, keys=(*core.COMPARED, "source"))
        if file is not None:
            if not file.is_file():
                raise CommandError(f"{file}: no such file")
            digest, size = core.file_sha256(file)
            differences += core.differences(claimed, {"file_sha256": digest, "file_size": size},
                                            keys=("file_sha256", "file_size"))
        if rescore:
            differences += [core.Difference(f"rescored.{d.key}", d.expected, d.found)
                            for d in submission_rescore_differences(submission=submission)]
        self.stdout.write(f"submission #{submission.pk}: " + core.report(differences))
        if differences:
            raise SystemExit(1)
