from rest_framework import serializers

from scoring.models import Submission


class SubmissionCreateInput(serializers.Serializer):
    benchmark = serializers.SlugField(help_text="epic-bench, plan-bench or vge-bench")
    split = serializers.SlugField(required=False, allow_blank=True, help_text="Split name; the default split if empty.")
    model = serializers.CharField(max_length=200, help_text="Model entry name; a new name creates an entry you own.")
    thinking = serializers.ChoiceField(choices=["", "yes", "no"], required=False, default="")
    file = serializers.FileField(allow_empty_file=True)
    raw = serializers.BooleanField(required=False, default=False, help_text="EPIC-Bench: raw model responses.")
    options = serializers.JSONField(required=False, default=dict, help_text="Extra scorer options.")
    note = serializers.CharField(required=False, allow_blank=True, default="")
    organisation = serializers.CharField(required=False, allow_blank=True, default="")
    kind = serializers.ChoiceField(choices=["", "proprietary", "open-source", "embodied", "baseline"], required=False, default="")
    parameters_b = serializers.FloatField(required=False, allow_null=True, default=None)

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("options must be a JSON object")
        return value


class SubmissionOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="split.benchmark.slug")
    split = serializers.CharField(source="split.name")
    split_version = serializers.IntegerField(source="split.version")
    model = serializers.CharField(source="model_entry.__str__")
    score = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id", "benchmark", "split", "split_version", "model", "status", "error_message", "error_report",
            "scorer_version", "progress_done", "progress_total", "created_at", "finished_at", "score", "url",
        ]

    def get_score(self, obj: Submission):
        score = getattr(obj, "score", None) if obj.status == Submission.Status.SCORED else None
        if score is None:
            return None
        return {
            "overall": score.overall,
            "breakdown": score.breakdown,
            "intervals": score.intervals,
            "details": score.details,
            "scorer_version": score.scorer_version,
        }

    def get_url(self, obj: Submission) -> str:
        return f"/submissions/{obj.pk}/"
