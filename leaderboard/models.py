"""Precomputed paired-bootstrap comparisons between scored submissions of one split (for board rank marks)."""
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
