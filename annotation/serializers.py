"""Explicit input and output serializers of the annotation API."""
from __future__ import annotations

from rest_framework import serializers

from annotation.models import Embedding, Image, Item


class ImageUploadInput(serializers.Serializer):
    file = serializers.FileField(help_text="An image (JPEG, PNG, WEBP, BMP) or a zip of images.")
    project = serializers.SlugField(required=False, allow_blank=True, help_text="Create items in this project.")


class ImageOutput(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    segment_url = serializers.SerializerMethodField()

    class Meta:
        model = Image
        fields = ["id", "original_name", "width", "height", "format", "sha256", "url", "segment_url"]

    def get_url(self, obj: Image) -> str:
        return f"/api/annotation/images/{obj.pk}/file/"

    def get_segment_url(self, obj: Image) -> str:
        return f"/api/annotation/images/{obj.pk}/segment/"


class ImageUploadOutput(serializers.Serializer):
    images = ImageOutput(many=True)
    items = serializers.ListField(child=serializers.IntegerField(), help_text="Items created in the project, if any.")


class SegmentInput(serializers.Serializer):
    # Shapes are checked by annotation.core against the image, which names the offending field.
    points = serializers.JSONField(required=False, default=list, help_text="[[x, y, 1|0], ...]")
    box = serializers.JSONField(required=False, allow_null=True, default=None, help_text="[x1, y1, x2, y2] or null")
    multimask = serializers.BooleanField(required=False, default=True)
    mask_input = serializers.JSONField(required=False, allow_null=True, default=None,
                                       help_text="The previous mask as a COCO RLE, fed back as a prompt.")

    def validate_points(self, value):
        if not isinstance(value, list):
            raise serializers.ValidationError("points must be a list of [x, y, 1|0]")
        return value


class EmbeddingOutput(serializers.ModelSerializer):
    image = serializers.IntegerField(source="image_id")

    class Meta:
        model = Embedding
        fields = ["image", "model_key", "status", "progress", "error", "seconds"]


class BrowserDecoderOutput(serializers.Serializer):
    decoder_url = serializers.CharField(help_text="SAM's prompt encoder + mask decoder as ONNX (onnxruntime-web).")
    features_url = serializers.CharField(help_text="The image embedding as little-endian float16 bytes.")


class EmbeddingStatusOutput(EmbeddingOutput):
    browser = BrowserDecoderOutput(allow_null=True, help_text="Set when the editor can segment in the browser.")

    class Meta(EmbeddingOutput.Meta):
        fields = [*EmbeddingOutput.Meta.fields, "browser"]


class EmbeddingPendingOutput(EmbeddingOutput):
    status = serializers.ChoiceField(choices=["queued", "running"])  # ready segments at once; failed is a 503
    status_url = serializers.CharField(help_text="Poll this until its status is ready, then segment again.")
    detail = serializers.CharField()

    class Meta(EmbeddingOutput.Meta):
        fields = [*EmbeddingOutput.Meta.fields, "status_url", "detail"]


class MaskOutput(serializers.Serializer):
    rle = serializers.DictField(help_text="COCO RLE {size: [h, w], counts: str}")
    score = serializers.FloatField()


class SegmentOutput(serializers.Serializer):
    masks = MaskOutput(many=True)
    backend = serializers.CharField()
    ms = serializers.FloatField()


class ItemOutput(serializers.ModelSerializer):
    images = serializers.SerializerMethodField()
    leaf = serializers.CharField(source="project.leaf")
    assignee = serializers.CharField(source="assignee.username", default=None, allow_null=True,
                                     help_text="Username, or null while the item is unassigned.")
    has_overlay = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = [
            "id", "name", "leaf", "state", "version", "assignee", "images", "texts", "count", "precise_count",
            "count_in_description", "placement_feasible", "instances", "provenance", "findings", "override_reason",
            "has_overlay", "updated_at",
        ]

    def get_has_overlay(self, obj: Item) -> bool:
        return bool(obj.overlay)

    def get_images(self, obj: Item) -> list[dict]:
        return [ImageOutput(link.image).data for link in obj.item_images.select_related("image").order_by("index")]


class ItemSaveInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=1)
    texts = serializers.DictField(child=serializers.CharField(allow_blank=True), required=False, default=dict)
    count = serializers.IntegerField(required=False, allow_null=True, default=None)
    precise_count = serializers.BooleanField(required=False, default=False)
    count_in_description = serializers.BooleanField(required=False, default=False)
    placement_feasible = serializers.BooleanField(required=False, allow_null=True, default=None)
    instances = serializers.JSONField(required=False, default=dict, help_text="{masklet: [COCO RLE, ...]}")
    edits = serializers.JSONField(
        required=False, default=dict,
        help_text="{masklet: [null | {base: COCO RLE, ops: [edit, ...]}]}, one entry per instance: the brush, "
                  "erase, polygon and fill_holes edits that turned base into the instance's mask; the server replays "
                  "them (annotation/core/edits.py) and refuses the save (400) when the mask differs.")
    provenance = serializers.JSONField(
        required=False, default=dict,
        help_text="{masklet: [null | {source, model, checkpoint_sha256, decoder, prompts, predicted_iou, "
                  "painted_share, history, history_dropped}]}, one entry per instance: how each mask was made "
                  "(docs/annotation.md, quality control); refused (400) with the JSON path of a bad field.")


class ItemSubmitInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=1)
    override_reason = serializers.CharField(required=False, allow_blank=True, default="")
