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


class ItemOutput(serializers.ModelSerializer):
    images = serializers.SerializerMethodField()
    leaf = serializers.CharField(source="project.leaf")
    assignee = serializers.CharField(source="assignee.username", default=None)
    has_overlay = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = [
            "id", "name", "leaf", "state", "version", "assignee", "images", "texts", "count", "precise_count",
            "count_in_description", "placement_feasible", "instances", "findings", "override_reason", "has_overlay",
            "updated_at",
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


class ItemSubmitInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=1)
    override_reason = serializers.CharField(required=False, allow_blank=True, default="")
