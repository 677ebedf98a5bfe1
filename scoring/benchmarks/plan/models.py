"""PLAN-Bench judge cascade records: decided verdicts (the cache every re-score reads), the human judgement
queue, and the judge audit (people re-checking a stratified sample of rule and model verdicts). Loaded by the
package's own app (`apps.PlanBenchConfig`); they keep the app label "scoring", whose migrations hold them."""
from django.conf import settings
from django.db import models


class PlanDecider(models.TextChoices):
    RULE = "rule", "Rule"
    MODEL = "model", "LLM judge"
    PERSON = "person", "Person"


class PlanVerdict(models.Model):
    """A decided verdict on one (item content, output text) by one judge under one prompt version.

    Shared by every submission that gave the same output to the same item, so a re-score never asks twice.
    Rule verdicts are recomputed (they are cheap and deterministic) and are not stored here.
    """

    item_key = models.CharField(max_length=300)
    item_fingerprint = models.CharField(max_length=64, help_text="Hash of question, answer, hint and options.")
    output_hash = models.CharField(max_length=64, help_text="Hash of the whitespace-normalised output.")
    output_text = models.TextField(blank=True)
    judge = models.CharField(max_length=200, help_text="Judge model name, or the person's username.")
    prompt_version = models.CharField(max_length=40, help_text="The judge prompt version, or 'person'.")
    decided_by = models.CharField(max_length=10, choices=PlanDecider.choices)
    decided_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    correct = models.BooleanField()
    extracted = models.CharField(max_length=10, blank=True, help_text="Option letter the judge mapped to.")
    raw_output = models.TextField(blank=True, help_text="The judge's reply verbatim.")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "scoring"
        constraints = [
            models.UniqueConstraint(
                fields=["item_fingerprint", "output_hash", "judge", "prompt_version"], name="unique_plan_verdict"
            )
        ]
        indexes = [models.Index(fields=["item_fingerprint", "output_hash"])]

    def __str__(self) -> str:
        return f"{self.item_key}: {'correct' if self.correct else 'wrong'} by {self.judge}"


class PlanJudgement(models.Model):
    """An (item, output) that neither rules nor the LLM judge decided: it waits for a person."""

    class Status(models.TextChoices):
        OPEN = "open", "Waiting"
        DECIDED = "decided", "Decided"

    item_key = models.CharField(max_length=300)
    item_fingerprint = models.CharField(max_length=64)
    output_hash = models.CharField(max_length=64)
    output_text = models.TextField(blank=True)
    dimension = models.CharField(max_length=50, blank=True)
    subtask = models.CharField(max_length=10, blank=True)
    item = models.JSONField(default=dict, blank=True, help_text="question, options, answer, hint, images")
    reason = models.TextField(blank=True, help_text="Why the cascade did not decide (rule / judge failure).")
    raw_judge_output = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    verdict = models.ForeignKey(PlanVerdict, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "scoring"
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["item_fingerprint", "output_hash"], name="unique_plan_judgement")
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"{self.item_key} ({self.status})"

    @property
    def key(self) -> str:
        return f"{self.item_fingerprint}:{self.output_hash}"


class PlanAuditCheck(models.Model):
    """One rule or model verdict drawn for a person to verify; agreement is computed over the reviewed ones."""

    split = models.ForeignKey("scoring.Split", on_delete=models.CASCADE, related_name="plan_audit_checks")
    sample = models.ForeignKey("scoring.Sample", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    item_key = models.CharField(max_length=300)
    item_fingerprint = models.CharField(max_length=64)
    output_hash = models.CharField(max_length=64)
    output_text = models.TextField(blank=True)
    dimension = models.CharField(max_length=50)
    subtask = models.CharField(max_length=10)
    judge_decided_by = models.CharField(max_length=10, choices=PlanDecider.choices)
    judge = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=40, blank=True)
    judge_correct = models.BooleanField()
    raw_judge_output = models.TextField(blank=True)
    draw = models.CharField(max_length=50, help_text="Which stratified draw it came from (seed).")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    human_correct = models.BooleanField(null=True, blank=True)
    reviewer_note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "scoring"
        ordering = ["subtask", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["split", "item_fingerprint", "output_hash", "judge", "prompt_version"],
                name="unique_plan_audit_check",
            )
        ]

    def __str__(self) -> str:
        return f"audit {self.item_key} ({self.judge})"

    @property
    def agrees(self) -> bool | None:
        return None if self.human_correct is None else self.human_correct == self.judge_correct
