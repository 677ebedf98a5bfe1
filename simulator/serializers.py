"""Explicit input and output serializers of the VGE agent API."""
from __future__ import annotations

from rest_framework import serializers


class EpisodeCreateInput(serializers.Serializer):
    task = serializers.CharField(min_length=1, max_length=250)


ACT_OUTPUT_MAX = 20000  # characters of one model output


class ActInput(serializers.Serializer):
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=ACT_OUTPUT_MAX)


class ObservationOutput(serializers.Serializer):
    episode = serializers.IntegerField()
    turn = serializers.IntegerField()
    view = serializers.CharField()
    image_url = serializers.CharField()
    accessible_views = serializers.ListField(child=serializers.CharField())
    instruction = serializers.CharField(allow_null=True)
    goal_index = serializers.IntegerField()
    goals_total = serializers.IntegerField()
    budgets = serializers.DictField()
    done = serializers.BooleanField()
    success = serializers.BooleanField()


class FeedbackOutput(serializers.Serializer):
    kind = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    action = serializers.CharField(allow_null=True)
    goal_reached = serializers.BooleanField()


class ActOutput(serializers.Serializer):
    feedback = FeedbackOutput()
    observation = ObservationOutput()
    done = serializers.BooleanField()


class EpisodeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.CharField()
    kind = serializers.CharField()
    finished = serializers.BooleanField()
    success = serializers.BooleanField()
    metrics = serializers.DictField()
    observation = ObservationOutput()
    trace = serializers.ListField(child=serializers.DictField())


class BundleInput(serializers.Serializer):
    model = serializers.CharField(min_length=1, max_length=200)
    split = serializers.CharField(max_length=50, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")


class BundleOutput(serializers.Serializer):
    submission = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()
