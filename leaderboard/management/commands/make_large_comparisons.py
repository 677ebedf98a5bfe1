"""The board comparisons of the large hub (`make_large_hub`, issue 34): what the worker stores as scores land.

When a score lands the worker stores its comparisons with its neighbours by the headline figure
(`board_comparisons_update`); a board view computes only the pairs it shows that are still missing, a few inline
and the rest on the worker. `make_large_hub` writes its scores in bulk, past that path, so without this command
every board view of a generated split would compute up to a page of pairs inline, which no hub whose scores landed
one by one does. For each `scale` split it stores the comparisons of each public scored upload with the next one by
the headline figure, through the service the worker uses (`board_comparisons_compute`), pairs already stored left.
"""
from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from leaderboard import selectors
from leaderboard.services import board_comparisons_compute
from scoring.models import Split, Submission
from scoring.selectors import on_boards

SPLIT = "scale"
PAIRS_PER_BATCH = 50


class Command(BaseCommand):
    help = "Store the board comparisons of the generated `scale` splits' neighbours (make_large_hub runs it)."

    def add_arguments(self, parser):
        parser.add_argument("--scale", type=int, default=1, help="unused: make_large_hub passes it to each generator")
        parser.add_argument("--seed", type=int, default=34, help="unused: the comparisons' bootstrap has its own")

    def handle(self, *args, **options):
        for split in Split.objects.filter(name=SPLIT).select_related("benchmark").order_by("benchmark__slug"):
            started = time.monotonic()
            ranked = list(on_boards(Submission.objects.filter(
                split=split, status=Submission.Status.SCORED, source=Submission.Source.UPLOAD,
                score__overall__isnull=False)).order_by("-score__overall", "pk").values_list("pk", flat=True))
            pairs = list(zip(ranked, ranked[1:]))
            stored = selectors.board_pairs_stored(pairs=pairs)
            missing = [p for p in pairs if frozenset(p) not in stored]
            for start in range(0, len(missing), PAIRS_PER_BATCH):
                board_comparisons_compute(split_id=split.pk, pairs=missing[start:start + PAIRS_PER_BATCH])
            self.stdout.write(f"make_large_comparisons: {split.benchmark.slug}: {len(missing)} pairs stored "
                              f"({time.monotonic() - started:.0f} s)")
