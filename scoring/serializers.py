from drf_spectacular.utils import OpenApiResponse, extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from scoring import benchmarks
from scoring.models import Submission
from scoring.provenance import shown_provenance
from scoring.queue_health import submission_queue_place
from scoring.selectors import identical_submissions


class ErrorProblemOutput(serializers.Serializer):
    """One kind of problem of a refused file: said once, with how many lines it is on and the first of them."""

    line = serializers.IntegerField(allow_null=True, help_text="The first line with this problem, if on a line.")
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField(help_text="The first such problem's message (the others differ at most in "
                                              "quoted values).")
    count = serializers.IntegerField(required=False, help_text="How many problems of this kind the file has.")
    lines = serializers.ListField(child=serializers.IntegerField(), required=False,
                                  help_text="The first 10 lines with this problem.")


@extend_schema_serializer(component_name="Error")
class ErrorOutput(serializers.Serializer):
    """Every refusal of the API has this shape (scoring.errors.ServiceRefusal.body, rendered by scoring.api_errors):
    a readable `detail`, and where it applies the request `field` or the file `line` at fault, the serializer's
    `errors` per field, or a file's `problems` per line."""

    detail = serializers.CharField()
    field = serializers.CharField(required=False, help_text="The request field at fault, if one.")
    line = serializers.IntegerField(required=False, help_text="The line of the uploaded file at fault, if one.")
    errors = serializers.DictField(required=False, help_text="Field -> messages, when the request did not validate.")
    problems = ErrorProblemOutput(many=True, required=False,
                                  help_text="A refused file's problems, grouped by kind, each with its count.")
    problem_count = serializers.IntegerField(required=False, help_text="How many problems the refused file has in "
                                                                       "all (every one is in a group's count).")


ERROR_MEANINGS = {
    400: "The request or its file is invalid; `detail` says why (and `field`, `errors` or `problems` where).",
    401: "Not signed in: send an API token (Authorization: Token ...) or a session.",
    403: "Signed in, but not allowed (someone else's entry or item, a reserved model name, a missing role).",
    404: "No such object, or not one the caller may see.",
    409: "The object changed or is in another state meanwhile (e.g. an item's version); reload and retry.",
    413: "The upload is over the size limit.",
    429: "The daily submission quota of the split is used up; `detail` says when it resets.",
    503: "A dependency of the operation failed (e.g. computing an image embedding); retry later.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """The error answers an operation really gives, for `extend_schema(responses=...)`: one shape for all."""
    return {status: OpenApiResponse(ErrorOutput, description=ERROR_MEANINGS[status]) for status in statuses}


def _benchmarks_help() -> str:
    slugs = [plugin.slug for plugin in benchmarks.plugins()]
    return " or ".join(filter(None, (", ".join(slugs[:-1]), slugs[-1]))) if slugs else "a benchmark's slug"


def _options_help() -> str:
    """The upload options of every benchmark, as the upload form offers them (`BenchmarkPlugin.upload_options`)."""
    declared = [f"{o.name}: one of {', '.join(v for v, _ in o.choices)} (default {o.default}); {o.help}"
                for o in benchmarks.upload_options().values()]
    return " ".join(["Extra scorer options.", *declared])


class SubmissionCreateInput(serializers.Serializer):
    benchmark = serializers.SlugField(help_text=_benchmarks_help())
    split = serializers.SlugField(required=False, allow_blank=True, help_text="Split name; the default split if empty.")
    model = serializers.CharField(min_length=1, max_length=200,
                                  help_text="Model entry name; a new name creates an entry you own.")
    thinking = serializers.ChoiceField(choices=["", "yes", "no"], required=False, default="")
    file = serializers.FileField(allow_empty_file=True)
    raw = serializers.BooleanField(required=False, default=False,
                                   help_text="Raw model responses (the scorer parses them first).")
    options = serializers.JSONField(required=False, default=dict, help_text=_options_help())
    note = serializers.CharField(required=False, allow_blank=True, default="")
    run_set = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=60,
        help_text="Repeated runs: the same label on several submissions of one model to one split marks them as "
                  "runs of one variant; the board shows their mean with the run-to-run spread.",
    )
    organisation = serializers.CharField(required=False, allow_blank=True, default="")
    kind = serializers.ChoiceField(choices=["", "proprietary", "open-source", "embodied", "baseline"], required=False,
                                   default="", help_text="A new model entry's kind; empty: not stated.")
    visibility = serializers.ChoiceField(choices=["public", "private"], required=False, default="public",
                                         help_text="public: on the boards; private: scored, seen by you only.")
    parameters_b = serializers.FloatField(required=False, allow_null=True, default=None)

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("options must be a JSON object")
        return value


class SubmissionVisibilityInput(serializers.Serializer):
    visibility = serializers.ChoiceField(
        choices=["public", "private", "withdrawn"],
        help_text="public: on the boards; private: scored, seen by its submitter only; withdrawn: on no board, for "
                  "good (a curator may restore it).")


SUBMISSIONS_PAGE = 20  # the submission list's page, unless it asks for another size
SUBMISSIONS_PAGE_MAX = 500


class SubmissionListInput(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=10 ** 9, default=1, help_text="The page, newest first.")
    page_size = serializers.IntegerField(min_value=1, max_value=SUBMISSIONS_PAGE_MAX, default=SUBMISSIONS_PAGE,
                                         help_text=f"Submissions a page (default {SUBMISSIONS_PAGE}).")


class ScoreOutput(serializers.Serializer):
    overall = serializers.FloatField(allow_null=True, help_text="Headline figure, in percent.")
    breakdown = serializers.DictField(help_text="Column key -> value.")
    intervals = serializers.DictField(help_text="Column key -> [low, high], 95% bootstrap.")
    details = serializers.DictField()
    scorer_version = serializers.CharField()


class ProvisionalOutput(serializers.Serializer):
    open_items = serializers.IntegerField(allow_null=True, help_text="Items whose answers still wait for judgement.")
    low = serializers.FloatField(allow_null=True, help_text="Provisional overall if every open item is wrong.")
    high = serializers.FloatField(allow_null=True, help_text="Provisional overall if every open item is right.")
    text = serializers.CharField(help_text='As the pages say it, e.g. "awaiting judgement (33 open items; '
                                           'provisional 40.00–55.00)".')


class QueuePlaceOutput(serializers.Serializer):
    position = serializers.IntegerField(help_text="1: the next job a worker takes (every benchmark's jobs queue "
                                                  "together, oldest first).")
    ahead = serializers.IntegerField(help_text="Jobs queued before this one.")
    running = serializers.IntegerField(help_text="Jobs being scored now.")
    workers_alive = serializers.IntegerField(help_text="Scoring workers with a recent heartbeat.")
    estimate_seconds = serializers.FloatField(
        allow_null=True, help_text="Estimated seconds until scored (the last day's median scoring time, the work "
                                   "ahead shared by the workers alive); null with no worker or no recent scoring.")
    overdue = serializers.BooleanField(help_text="Queued past stale_after_minutes: the site kept it waiting, so the "
                                                 "quota it used is given back.")
    stale_after_minutes = serializers.IntegerField()


class SubmissionOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(
        source="state", choices=Submission.State.choices, read_only=True,
        help_text="queued, running, scored or failed; awaiting_judgement: scored, but answers still wait for a judge "
                  "or for people, so the score is provisional (`provisional`) and not final.")
    status_label = serializers.CharField(source="state_label", read_only=True, help_text="The status in words.")
    provisional = serializers.SerializerMethodField()
    benchmark = serializers.CharField(source="split.benchmark.slug")
    split = serializers.CharField(source="split.name")
    split_version = serializers.IntegerField(source="split.version")
    model = serializers.CharField(source="model_entry.__str__")
    score = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    type = serializers.CharField(source="source", read_only=True,
                                 help_text="The row type: upload (self-reported), reported (paper), reproduced "
                                           "(re-derived by the hub), hub-run.")
    sha256 = serializers.CharField(read_only=True, help_text="The uploaded file's sha256.")
    identical_to = serializers.SerializerMethodField(
        help_text="Your other submissions of the very same file (same sha256); the file is stored once.")
    provenance = serializers.SerializerMethodField(
        help_text="What the score was made from (docs/provenance.md): file sha256 and size, scorer, split and hub "
                  "versions, the ground truth's hash (\"withheld\" on a hidden split but for curators) and the "
                  "protocol options; null before scoring. The file: /submissions/<id>/provenance.json.")
    queue = serializers.SerializerMethodField()
    error_count = serializers.SerializerMethodField(
        help_text="How many problems the file had in all; `error_report` lists the first 100, then one entry "
                  "{line: null, field: null, message: 'and K more problems ...', more: K}.")

    class Meta:
        model = Submission
        fields = [
            "id", "benchmark", "split", "split_version", "model", "status", "status_label", "provisional",
            "error_message", "error_report",
            "error_count", "scorer_version", "progress_done", "progress_total", "created_at", "finished_at", "score", "url",
            "visibility", "type", "sha256", "identical_to", "provenance", "queue",
        ]

    @extend_schema_field(QueuePlaceOutput(allow_null=True, help_text="While queued, on the submission's own endpoint: "
                                                                     "its place in the queue; else null."))
    def get_queue(self, obj: Submission) -> dict | None:
        if not self.context.get("queue"):
            return None
        place = submission_queue_place(submission=obj)
        return None if place is None else place.as_dict()

    @extend_schema_field(ScoreOutput(allow_null=True, help_text="The score once the submission is scored, else null."))
    def get_score(self, obj: Submission) -> dict | None:
        score = getattr(obj, "score", None) if obj.status == Submission.Status.SCORED else None
        return None if score is None else ScoreOutput(score).data

    @extend_schema_field(ProvisionalOutput(allow_null=True, help_text="While the status is awaiting_judgement: the "
                                                                      "open items and the provisional range; else null."))
    def get_provisional(self, obj: Submission) -> dict | None:
        found = obj.provisional
        if found is None:
            return None
        return {"open_items": found.open_items, "low": found.low, "high": found.high, "text": str(found)}

    def get_identical_to(self, obj: Submission) -> list[int]:
        by_sha = self.context.get("identical")  # a list's: read once for all its rows
        if by_sha is not None:
            return [pk for pk in by_sha.get(obj.sha256, []) if pk != obj.pk][:20]
        return identical_submissions(submission=obj)

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_provenance(self, obj: Submission) -> dict | None:
        score = getattr(obj, "score", None) if obj.status == Submission.Status.SCORED else None
        if score is None or not score.provenance:
            return None
        return shown_provenance(score=score, user=self.context.get("user"))

    def get_error_count(self, obj: Submission) -> int:
        # Each listed problem counts one; the last entry of a capped report counts those it stands for.
        return sum(p.get("more", 1) for p in obj.error_report or [] if isinstance(p, dict))

    def get_url(self, obj: Submission) -> str:
        return f"/submissions/{obj.pk}/"


class ProvenanceDifferenceOutput(serializers.Serializer):
    key = serializers.CharField(help_text='A dotted path: "file_sha256", "options.coord_mode", "figures.overall".')
    expected = serializers.JSONField(help_text="What the provenance file says.")
    found = serializers.JSONField(help_text="What the hub holds.")


class ProvenanceVerifyOutput(serializers.Serializer):
    same = serializers.BooleanField(help_text="The file is the stored score's provenance, key for key.")
    submission = serializers.IntegerField()
    differences = ProvenanceDifferenceOutput(many=True, help_text="Every key that differs; empty when the same.")

