"""Precomputed paired-bootstrap comparisons between scored submissions of one split (for board rank marks), and
frozen board snapshots."""
from django.conf import settings
from django.db import models

from scoring.models import Split, Submission


class BoardComparison(models.Model):
    """Paired bootstrap of two submissions' per-sample scores on the samples both were scored on.

    `a` always has the smaller id, so a pair is stored once. Computed when a submission is scored, so board
    pages never read per-sample rows.
    """

    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="+")
    a = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    difference = models.FloatField(help_text="mean(a) - mean(b) on shared samples, in score units.")
    p_value = models.FloatField()
    shared_units = models.PositiveIntegerField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["a", "b"], name="unique_board_comparison")]
        indexes = [models.Index(fields=["split"])]

    def __str__(self) -> str:
        return f"#{self.a_id} vs #{self.b_id}: p={self.p_value:.3f}"


class BoardSnapshot(models.Model):
    """A board frozen by a curator (issue 29): the rows as the board showed them under a split version, a scorer
    version and filters, stored with the exact CSV and JSON served and the JSON's SHA-256, so a paper can cite a
    permalink that never changes when scores do. Written once (leaderboard.services_snapshots), never edited."""

    benchmark = models.ForeignKey("scoring.Benchmark", on_delete=models.CASCADE, related_name="snapshots")
    # RESTRICT: a split with snapshots is not deleted alone (they cite it); deleting its benchmark deletes all three
    split = models.ForeignKey(Split, on_delete=models.RESTRICT, related_name="+")
    name = models.SlugField(max_length=80, help_text="The permalink's last part: a date or a name.")
    title = models.CharField(max_length=200, blank=True)
    scorer_version = models.CharField(max_length=200, blank=True,
                                      help_text="Empty: each row's current score when frozen.")
    query = models.CharField(max_length=1000, blank=True, help_text="The board's filters, as its query string.")
    document = models.TextField(help_text="The JSON export, byte for byte as served.")
    csv = models.TextField(help_text="The CSV export, byte for byte as served.")
    content_sha256 = models.CharField(max_length=64, help_text="SHA-256 of the JSON document.")
    csv_sha256 = models.CharField(max_length=64)
    scores = models.JSONField(default=dict, help_text="submission id -> [scorer version, when its score was made], "
                                                      "to tell a reader when a newer score exists.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["benchmark", "-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="unique_board_snapshot_name")]

    def __str__(self) -> str:
        return f"{self.benchmark.slug} snapshot {self.name}"


class AnalysisSummary(models.Model):
    """A scored submission's summary for the Analysis tab (issue 34): the sufficient statistics of its per-sample
    rows its benchmark's `AnalysisSummaries.summarise` wrote, from which the figures are combined per request
    without reading a per-sample row. One per disclosure: `public` from everything the figures read (ground truth
    keys, the site's reads), `hidden` from what a split with hidden ground truth discloses (its plugin's
    `hidden_split_detail_keys`, no ground truth, no site reads). Written when a score lands or is re-scored
    (leaderboard.services_analysis); a missing one, or one of another `version`, is computed when a page needs it."""

    class Disclosure(models.TextChoices):
        PUBLIC = "public", "Public ground truth"
        HIDDEN = "hidden", "Hidden ground truth"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    disclosure = models.CharField(max_length=10, choices=Disclosure.choices)
    version = models.CharField(max_length=200, help_text="The summaries' version and context stamp it was made "
                                                         "under (BenchmarkPlugin.analysis_summary_version).")
    summary = models.JSONField(default=dict)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "disclosure"],
                                               name="unique_analysis_summary")]

    def __str__(self) -> str:
        return f"#{self.submission_id} {self.disclosure} summary {self.version}"


class BoardChange(models.Model):
    """A board's row or comparison a write touched, with the id of the transaction that wrote it: PostgreSQL's
    triggers on submissions, scores, model entries and comparisons write these (migration 0005), so a process that
    kept a board's rows reads the changes of the transactions it had not seen (`xid` at or above its last snapshot's
    xmin) and reads those rows again, not the whole board (leaderboard.selectors). Any write counts, the site's or
    another's (an admin's, a script's SQL); SQLite has no such table's triggers and reads the board's digest instead.
    Pruned after an hour (`services.board_changes_prune`), the pruned transactions' horizon kept in
    BoardChangeHorizon."""

    class Kind(models.IntegerChoices):
        ROW = 0, "Board row (a submission, its score or its model entry)"
        PAIR = 1, "Comparison"

    split_id = models.BigIntegerField()
    kind = models.SmallIntegerField(choices=Kind.choices)
    item_id = models.BigIntegerField(help_text="The submission (a row) or the comparison (a pair).")
    xid = models.BigIntegerField(help_text="The writing transaction's id (pg_current_xact_id).")
    at = models.DateTimeField(help_text="When the trigger wrote it (clock_timestamp), for pruning.")

    class Meta:
        indexes = [models.Index(fields=["split_id", "kind", "xid"], name="board_change_since"),
                   models.Index(fields=["at"], name="board_change_at")]

    def __str__(self) -> str:
        return f"split {self.split_id} {self.get_kind_display()} #{self.item_id} in transaction {self.xid}"


class BoardChangeHorizon(models.Model):
    """The one row saying which transactions' board changes were pruned: those below `below`. A reader whose last
    snapshot's xmin is below it may have lost changes and reads the board's digest instead."""

    below = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"board changes pruned below transaction {self.below}"
