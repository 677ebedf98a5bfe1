"""Read API of the boards and the free format pre-check (one DRF view per operation, explicit serializers)."""
from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard import selectors
from leaderboard.board_views import (
    board_resolve,
    board_view,
    cached_response,
    protocol_statement,
    reading_shown,
)
from leaderboard.core.board import PAGE_ROWS, PAGE_ROWS_MAX, ROW_TYPES, BadBoardQuery, board_page, parse_page
from scoring import services
from scoring.errors import ServiceRefusal
from scoring.precheck import submission_precheck
from scoring.serializers import error_responses

API_CONTENT_TYPE = "application/json"


class ColumnOutput(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    title = serializers.CharField()
    group = serializers.CharField()
    direction = serializers.ChoiceField(choices=["up", "down"], help_text="up: higher is better")
    level = serializers.ChoiceField(choices=["headline", "leaf", "extra"])


class ModelOutput(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    kind = serializers.CharField()
    thinking = serializers.CharField()
    parameters_b = serializers.FloatField(allow_null=True)
    organisation = serializers.CharField()


class RowOutput(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    submission = serializers.IntegerField()
    source = serializers.ChoiceField(choices=["reported", "scored"])
    model = ModelOutput()
    values = serializers.DictField(child=serializers.FloatField(allow_null=True))
    intervals = serializers.DictField(child=serializers.ListField(child=serializers.FloatField()),
                                      help_text="95% bootstrap intervals; scored rows only")
    not_significant_vs_above = serializers.BooleanField(
        help_text="The paired bootstrap finds no significant difference to the row above")
    scorer_version = serializers.CharField()
    runs = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Repeated runs averaged into this row (their submission ids); empty for a single submission")
    run_spread = serializers.DictField(
        child=serializers.FloatField(), help_text="Per column, the run-to-run standard deviation of repeated runs")
    reading_note = serializers.CharField(
        allow_blank=True, help_text="Why the row has no figures under the reading shown (empty when it has)")
    type = serializers.ChoiceField(
        choices=list(ROW_TYPES), help_text="reported (a paper's number), upload (self-reported: an upload scored "
                                           "here), reproduced (made again by the hub from its artefacts), hub-run")
    provenance = serializers.DictField(
        help_text="The score's provenance keys (docs/provenance.md); empty for a paper's number. A hidden split's "
                  "ground-truth hash reads \"withheld\".")


class ReadingOutput(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField()
    headline = serializers.BooleanField(help_text="The headline's reading, which ranks the board by default")


class BoardOutput(serializers.Serializer):
    benchmark = serializers.CharField()
    split = serializers.CharField()
    split_version = serializers.IntegerField()
    sort = serializers.CharField()
    protocol = serializers.CharField(allow_blank=True,
                                     help_text="Which protocol the board's numbers use (empty: the benchmark names none)")
    reading = ReadingOutput(allow_null=True, help_text="The reading the figures shown are under (null: the "
                                                       "benchmark scores under one reading)")
    total_rows = serializers.IntegerField(help_text="Rows on the board before filters and best entry per model")
    count = serializers.IntegerField(help_text="Rows this query shows, over all of its pages")
    page = serializers.IntegerField(help_text="This page's number (a number past the last gives the last page)")
    pages = serializers.IntegerField(help_text="Pages of `page_size` rows")
    page_size = serializers.IntegerField()
    columns = ColumnOutput(many=True)
    rows = RowOutput(many=True, help_text="This page's rows; ranks and significance are over the whole ordering")


BOARD_PARAMETERS = [
    OpenApiParameter("split", str, description="Split name (default: the benchmark's default split)"),
    OpenApiParameter("sort", str, description="Column key to sort by (default overall)"),
    OpenApiParameter("order", str, enum=["asc", "desc"], description="Default: better first"),
    OpenApiParameter("kind", str, description="Comma list of proprietary, open-source, embodied, human, baseline"),
    OpenApiParameter("thinking", str, description="Comma list of yes, no, unknown"),
    OpenApiParameter("source", str, description="Comma list of reported, scored"),
    OpenApiParameter("type", str, description="Comma list of row types: " + ", ".join(ROW_TYPES)),
    OpenApiParameter("min_params", float), OpenApiParameter("max_params", float),
    OpenApiParameter("q", str, description="Search in model name and organisation"),
    OpenApiParameter("entries", str, enum=["best", "all"], description="Best entry per model (default) or all"),
    OpenApiParameter("expand", bool, description="Include leaf columns"),
    OpenApiParameter("extras", bool, description="Include on-demand columns"),
    OpenApiParameter("reading", str, description="A second reading's key to show and rank by (a benchmark with "
                                                 "readings, e.g. strict); default: the headline's"),
    OpenApiParameter("scorer", str, description="A scorer version whose scores to show (an older one stays viewable "
                                                "after a re-score); default: each row's current score"),
    OpenApiParameter("split_version", int, description="A version of the split named by `split` (each version has a "
                                                       "board of its own); default: its newest"),
    OpenApiParameter("page", int, description="The page of rows (default 1)"),
    OpenApiParameter("page_size", int, description=f"Rows a page (default {PAGE_ROWS}, at most {PAGE_ROWS_MAX})"),
]


class LeaderboardApi(APIView):
    """The board as JSON. The same for every reader, so no authentication runs and the JSON is cached whole under
    the board page's key (split, scoring cache version, data fingerprint, full path: format, split name, filters),
    invalidated the same way when a score lands; the ASGI fast path (leaderboard.asgi) answers repeats."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(parameters=BOARD_PARAMETERS, responses={200: BoardOutput, **error_responses(400, 404)})
    def get(self, request: Request, benchmark: str) -> Response | HttpResponse:
        bench, split, spec, query = board_resolve(request.GET, benchmark)
        try:
            number, size = parse_page(request.GET, size_allowed=True)
        except BadBoardQuery as exc:
            raise ServiceRefusal(exc.message, field=exc.parameter) from None
        if request.accepted_renderer.format != "json":  # the browsable page of a browser: not cached
            return Response(_board_body(bench, split, spec, query, number, size))
        found = selectors.board_response_cached(
            split_id=split.pk, full_path=request.get_full_path(),
            build=lambda: selectors.CachedResponse(
                API_CONTENT_TYPE, JSONRenderer().render(_board_body(bench, split, spec, query, number, size))),
        )
        return cached_response(found)


def _board_body(bench, split, spec, query, number: int = 1, size: int = PAGE_ROWS) -> dict:
    """The board API's body (one page of rows), as its serializer writes it."""
    view, _ = board_view(split, spec, query, marks=False)
    page = board_page(len(view.rows), number, size)
    keys = [c.key for c in view.columns]
    rows = [
        {
            "rank": rank,
            "submission": r.submission_id,
            "source": r.source,
            "model": {"name": r.model_name, "slug": r.model_slug, "kind": r.kind, "thinking": r.thinking,
                      "parameters_b": r.parameters_b, "organisation": r.organisation},
            "values": {k: r.value(k) for k in keys},
            "intervals": {k: list(iv) for k in keys if (iv := r.interval(k)) is not None},
            "not_significant_vs_above": r.submission_id in view.ties,
            "scorer_version": r.scorer_version,
            "runs": list(r.run_ids),
            "run_spread": {k: v for k, v in r.run_spread.items() if k in keys},
            "reading_note": r.reading_note,
            "type": r.row_type,
            "provenance": dict(r.provenance),
        }
        for rank, r in zip(view.ranks[page.start:page.end], view.rows[page.start:page.end])
    ]
    body = {
        "benchmark": bench.slug, "split": split.name, "split_version": split.version, "sort": query.sort,
        "protocol": protocol_statement(bench.slug, query.reading), "reading": reading_shown(bench.slug, query.reading),
        "total_rows": view.total_rows, "count": page.count, "page": page.number, "pages": page.pages,
        "page_size": page.size,
        "columns": [{"key": c.key, "label": c.label, "title": c.title, "group": c.group,
                     "direction": c.direction.value, "level": c.level.value} for c in view.columns],
        "rows": rows,
    }
    return BoardOutput(body).data


class PrecheckInput(serializers.Serializer):
    benchmark = serializers.CharField(min_length=1)
    split = serializers.CharField(required=False, allow_blank=True)
    file = serializers.FileField()
    raw = serializers.BooleanField(required=False, default=False,
                                   help_text=f"{selectors.benchmarks_with_option('raw')}: raw model responses "
                                             "(as for the upload).")
    options = serializers.JSONField(required=False, default=dict, help_text="Scorer options, as for the upload.")
    model = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=200,
        help_text="The model's name, as for the upload (optional): a benchmark may read the file by it, e.g. the "
                  "coordinate system of the model's family where the coordinate mode is left at auto; `applied` says "
                  "what was chosen and why.")

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("options must be a JSON object")
        return value


class AppliedOutput(serializers.Serializer):
    setting = serializers.CharField(help_text="What the scorer chooses, e.g. \"coordinate system\".")
    value = serializers.CharField(help_text="The choice, e.g. \"normalized_0_1000\".")
    why = serializers.CharField(help_text="What decided it: the upload's options, the model's name, the file, a "
                                          "default.")


class ProblemOutput(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class PrecheckOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    checked_by = serializers.ChoiceField(choices=["scorer", "generic"])
    problems = ProblemOutput(many=True)
    file_format = serializers.CharField(help_text="What the scorer read the file as (empty: not known).")
    records = serializers.IntegerField(allow_null=True, help_text="Lines (rows) read as predictions.")
    matched = serializers.IntegerField(allow_null=True, help_text="Of those, lines that answer a sample of the split.")
    samples = serializers.IntegerField(allow_null=True, help_text="Samples in the split.")
    missing = serializers.ListField(child=serializers.CharField(),
                                    help_text="Keys of samples no line answers (the first 20; they score 0).")
    missing_count = serializers.IntegerField()
    notes = serializers.ListField(child=serializers.CharField())
    applied = AppliedOutput(many=True, help_text="The choices the scorer will make reading the file, and why.")


class PrecheckApi(APIView):
    """Validate a prediction file's format without scoring it and without using quota."""

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=PrecheckInput, responses={200: PrecheckOutput, **error_responses(400, 404, 413)})
    def post(self, request: Request) -> Response:
        data = PrecheckInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        split = services.split_resolve(benchmark_slug=v["benchmark"], split_name=v.get("split") or None)
        if v["file"].size > services.settings.SUBMISSION_MAX_BYTES:
            raise ServiceRefusal("The file is over the size limit.", status=413)
        options = dict(v["options"])
        if v["raw"]:
            options["raw"] = True
        result = submission_precheck(split=split, uploaded_file=v["file"], options=options, model=v["model"].strip())
        report = result.report
        return Response(PrecheckOutput({
            "ok": result.ok, "checked_by": result.checked_by, "problems": [p.as_dict() for p in result.problems],
            "file_format": report.file_format, "records": report.records, "matched": report.matched,
            "samples": report.samples, "missing": list(report.missing), "missing_count": report.missing_count,
            "notes": list(report.notes), "applied": [a.as_dict() for a in report.applied]}).data)
