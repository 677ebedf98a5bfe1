"""Annotation API (token or session auth): upload, segment, embedding status, item load/save/submit."""
from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Embedding, Image, Item, Project
from annotation.serializers import (
    EmbeddingOutput,
    EmbeddingPendingOutput,
    EmbeddingStatusOutput,
    ImageOutput,
    ImageUploadInput,
    ImageUploadOutput,
    ItemOutput,
    ItemSaveInput,
    ItemSubmitInput,
    SegmentInput,
    SegmentOutput,
)
from annotation.services.editing import item_overlay_set, item_save, item_submit
from annotation.services.permissions import can_edit_item, can_use_image
from annotation.services.projects import images_upload
from annotation.services.segmentation import (
    browser_decoder,
    browser_decoder_info,
    browser_embedding,
    embedding_request,
    image_segment,
)
from scoring.errors import ServiceRefusal
from scoring.parsers import BoundedJSONParser
from scoring.serializers import error_responses


def _image_for(request: Request, pk: int) -> Image:
    image = get_object_or_404(Image, pk=pk)
    if not can_use_image(request.user, image):
        raise Http404("No such image.")  # do not reveal images of other people's items
    return image


def _item_for(request: Request, pk: int) -> Item:
    item = get_object_or_404(Item.objects.select_related("project", "assignee"), pk=pk)
    if not can_edit_item(request.user, item):
        raise Http404("No such item.")
    return item


class ImageUploadApi(APIView):
    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ImageUploadInput, responses={201: ImageUploadOutput, **error_responses(400, 401, 403, 413)})
    def post(self, request: Request) -> Response:
        data = ImageUploadInput(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        if upload.size > settings.SAM_UPLOAD_MAX_BYTES:  # refuse before reading it into memory
            raise ServiceRefusal(f"{upload.name}: the upload is {upload.size} bytes, over the limit of "
                                 f"{settings.SAM_UPLOAD_MAX_BYTES}", status=413, field="file")
        project = None
        if slug := data.validated_data.get("project"):
            project = Project.objects.filter(slug=slug).first()
            if project is None:
                raise ServiceRefusal(f"No project {slug!r}.", field="project")
        result = images_upload(user=request.user, name=upload.name, data=upload, project=project)
        return Response(
            {"images": ImageOutput(result.images, many=True).data, "items": [item.pk for item in result.items]},
            status=status.HTTP_201_CREATED,
        )


class ImageFileApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={(200, "image/*"): OpenApiTypes.BINARY, **error_responses(401, 404)})
    def get(self, request: Request, pk: int):
        image = _image_for(request, pk)
        response = FileResponse(image.file.open("rb"), content_type=f"image/{image.format.lower()}")
        response["Cache-Control"] = "private, max-age=86400"
        return response


class SegmentApi(APIView):
    parser_classes = [BoundedJSONParser]
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=SegmentInput, responses={200: SegmentOutput, 202: EmbeddingPendingOutput,
                                                    **error_responses(400, 401, 404, 503)})
    def post(self, request: Request, pk: int) -> Response:
        image = _image_for(request, pk)
        data = SegmentInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        result = image_segment(
            image=image, points=v["points"], box=v["box"], multimask=v["multimask"], mask_input=v["mask_input"]
        )
        if isinstance(result, Embedding):
            status_url = f"/api/annotation/images/{image.pk}/embedding/"
            body = {**EmbeddingOutput(result).data, "status_url": status_url,
                    "detail": "The image embedding is being computed; retry when status_url says ready."}
            return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": status_url})
        return Response({
            "masks": [{"rle": m.rle, "score": m.score} for m in result.masks],
            "backend": result.backend,
            "ms": round(result.ms, 2),
        })


class EmbeddingStatusApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: EmbeddingStatusOutput, **error_responses(401, 404)})
    def get(self, request: Request, pk: int) -> Response:
        image = _image_for(request, pk)
        row = embedding_request(image=image)
        return Response({**EmbeddingOutput(row).data, "browser": browser_decoder_info(image=image, row=row)})


class EmbeddingFeaturesApi(APIView):
    """The image's SAM embedding for the editor's in-browser decoder (float16, shape and sizes in headers)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, **error_responses(401, 404)})
    def get(self, request: Request, pk: int):
        image = _image_for(request, pk)
        found = browser_embedding(image=image)
        response = HttpResponse(found.features, content_type="application/octet-stream")
        response["X-Embedding-Dtype"] = "float16"
        response["X-Embedding-Shape"] = ",".join(str(v) for v in found.shape)
        response["X-Image-Size"] = f"{found.image_size[0]},{found.image_size[1]}"
        response["X-Input-Size"] = f"{found.input_size[0]},{found.input_size[1]}"
        response["Access-Control-Expose-Headers"] = "X-Embedding-Dtype, X-Embedding-Shape, X-Image-Size, X-Input-Size"
        response["Cache-Control"] = "private, max-age=3600"
        return response


class BrowserDecoderApi(APIView):
    """SAM's prompt encoder + mask decoder as ONNX; the name holds the weights' fingerprint, so it never changes."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, **error_responses(401, 404)})
    def get(self, request: Request, model_key: str, fingerprint: str):
        path = browser_decoder(model_key=model_key, fingerprint=fingerprint)
        response = FileResponse(path.open("rb"), content_type="application/octet-stream")
        response["Cache-Control"] = "private, max-age=31536000, immutable"
        return response


class ItemApi(APIView):
    parser_classes = [BoundedJSONParser]
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: ItemOutput, **error_responses(401, 404)})
    def get(self, request: Request, pk: int) -> Response:
        return Response(ItemOutput(_item_for(request, pk)).data)

    @extend_schema(request=ItemSaveInput, responses={200: ItemOutput, **error_responses(400, 401, 403, 404, 409)})
    def put(self, request: Request, pk: int) -> Response:
        _item_for(request, pk)
        data = ItemSaveInput(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_save(user=request.user, item_id=pk, **data.validated_data)
        return Response(ItemOutput(item).data)


class ItemSubmitApi(APIView):
    parser_classes = [BoundedJSONParser]
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ItemSubmitInput, responses={200: ItemOutput, **error_responses(400, 401, 403, 404, 409)})
    def post(self, request: Request, pk: int) -> Response:
        _item_for(request, pk)
        data = ItemSubmitInput(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_submit(user=request.user, item_id=pk, **data.validated_data)
        return Response(ItemOutput(item).data)


class ItemOverlayApi(APIView):
    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ImageUploadInput, responses={200: ItemOutput, **error_responses(400, 401, 403, 404)})
    def post(self, request: Request, pk: int) -> Response:
        _item_for(request, pk)
        upload = request.FILES.get("file")
        if upload is None:
            raise ServiceRefusal("Attach the overlay PNG as 'file'.", field="file")
        item = item_overlay_set(user=request.user, item_id=pk, name=upload.name, data=upload.read())
        return Response(ItemOutput(item).data)
