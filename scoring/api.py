"""Submission API: one view per operation, explicit input and output serializers."""
from __future__ import annotations

from urllib.parse import urlencode

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring import access, selectors, services
from scoring.errors import ServiceRefusal
from scoring.models import Submission
from scoring.provenance import provenance_read, provenance_verify
from scoring.serializers import (
    ProvenanceVerifyOutput,
    SubmissionCreateInput,
    SubmissionListInput,
    SubmissionOutput,
    SubmissionVisibilityInput,
    error_responses,
)


class SubmissionCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [permissions.AllowAny]  # anonymous callers get a clear 401 from submission_check

    @extend_schema(request=SubmissionCreateInput,
                   responses={201: SubmissionOutput, **error_responses(400, 401, 403, 404, 409, 413, 429)})
    def post(self, request: Request) -> Response:
        user = request.user if request.user.is_authenticated else None
        services.upload_request_check(user=user, content_length=request.META.get("CONTENT_LENGTH"))
        data = SubmissionCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        split = services.split_resolve(benchmark_slug=v["benchmark"], split_name=v.get("split") or None)
        entry = services.model_entry_for_upload(
            user=user,
            name=v["model"],
            fields={
                "thinking": v["thinking"],
                "organisation": v["organisation"],
                "kind": v["kind"],
                "parameters_b": v["parameters_b"],
            },
        )
        options = dict(v["options"])
        if v["raw"]:
            options["raw"] = True
        submission = services.submission_create(
            user=user, split=split, model_entry=entry, uploaded_file=v["file"], options=options, note=v["note"],
            run_set=v["run_set"],
            visibility=v["visibility"],
        )
        return Response(SubmissionOutput(submission, context={"user": request.user}).data, status=status.HTTP_201_CREATED)


class SubmissionListApi(APIView):
    """The caller's submissions, newest first, a page at a time (`?page=`, `?page_size=`), so a request's cost stays
    that of a page however many a user has (issue 34). The body is the page's list; `X-Total-Count` says how many
    there are in all, and `Link` points to the next and previous pages (rel="next", rel="prev")."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(parameters=[SubmissionListInput],
                   responses={200: SubmissionOutput(many=True), **error_responses(400, 401)})
    def get(self, request: Request) -> Response:
        data = SubmissionListInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        number, size = data.validated_data["page"], data.validated_data["page_size"]
        mine = selectors.submissions_of_user(user=request.user)
        total = mine.count()
        rows = list(mine[(number - 1) * size:number * size])
        identical = selectors.identical_submissions_of_user(user=request.user, sha256s={r.sha256 for r in rows})
        response = Response(SubmissionOutput(rows, many=True,
                                             context={"user": request.user, "identical": identical}).data)
        response["X-Total-Count"] = str(total)
        links = [(n, rel) for n, rel in ((number + 1, "next"), (number - 1, "prev"))
                 if 1 <= n <= -(-total // size)]
        if links:
            response["Link"] = ", ".join(
                f'<{request.build_absolute_uri(request.path)}?{urlencode({"page": n, "page_size": size})}>; rel="{rel}"'
                for n, rel in links)
        return response


class SubmissionDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: SubmissionOutput, **error_responses(401, 404)})
    def get(self, request: Request, pk: int) -> Response:
        submission = get_object_or_404(Submission.objects.select_related("split__benchmark", "model_entry"), pk=pk)
        if not access.submission_own_page_visible_to(submission=submission, user=request.user):
            raise ServiceRefusal("Not your submission.", status=404)
        return Response(SubmissionOutput(submission, context={"user": request.user, "queue": True}).data)

    @extend_schema(request=SubmissionVisibilityInput,
                   responses={200: SubmissionOutput, **error_responses(400, 401, 403, 404)})
    def patch(self, request: Request, pk: int) -> Response:
        """Make a submission public, private or withdrawn (its submitter, or a curator); the change is recorded."""
        submission = get_object_or_404(Submission.objects.select_related("split__benchmark", "model_entry"), pk=pk)
        if not access.submission_own_page_visible_to(submission=submission, user=request.user):
            raise ServiceRefusal("Not your submission.", status=404)
        data = SubmissionVisibilityInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.submission_visibility_set(user=request.user, submission=submission,
                                           visibility=data.validated_data["visibility"])
        return Response(SubmissionOutput(submission, context={"user": request.user}).data)

class ProvenanceVerifyApi(APIView):
    """Check a provenance file (the JSON of /submissions/<id>/provenance.json, as the request's body) against the
    score it names as stored here: `same`, or every key that differs (a tampered or outdated file). Anyone may check
    a public score; a private one its submitter and curators."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request={"application/json": {"type": "object"}},
                   responses={200: ProvenanceVerifyOutput, **error_responses(400, 404)})
    def post(self, request: Request) -> Response:
        claimed = provenance_read(text=request.body)
        found = provenance_verify(claimed=claimed, user=request.user)
        return Response(ProvenanceVerifyOutput({
            "same": not found, "submission": claimed["submission"],
            "differences": [{"key": d.key, "expected": d.expected, "found": d.found} for d in found]}).data)


class ApiNotFound(APIView):
    """Any /api/ path no route matches (an id that is not a number, a misspelt benchmark): a JSON 404 in the API's
    error shape, never the HTML page of the site."""

    schema = None
    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise NotFound(f"No API operation at {request.path} ({request.method}); see /api/docs/ for the operations.")
