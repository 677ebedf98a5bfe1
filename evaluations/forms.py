from __future__ import annotations

import json

from django import forms

from scoring.benchmarks import plugin_for


class RunForm(forms.Form):
    split = forms.ModelChoiceField(queryset=None, help_text="Hidden splits too: the model sees inputs, never answers.")
    base_url = forms.URLField(max_length=500, label="Endpoint", assume_scheme="https",
                              help_text="An OpenAI-compatible base URL, e.g. https://api.example.org/v1")
    model_name = forms.CharField(max_length=200, label="Model", help_text="The model name the endpoint serves.")
    api_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False), label="API key",
                              help_text="Kept sealed for the run's life only; never shown again.")
    entry_name = forms.CharField(required=False, max_length=200, label="Board entry",
                                 help_text="The model entry the rows go to (default: the model's name).")
    options = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Protocol options",
                              help_text='JSON, e.g. {"history": 3} or {"coord_mode": "normalized_0_1000"}')
    k = forms.IntegerField(min_value=1, max_value=8, initial=1, help_text="Repeats, each its own row of one run set.")
    seed = forms.IntegerField(initial=0)
    temperature = forms.FloatField(initial=0.0, min_value=0.0, max_value=2.0)
    max_tokens = forms.IntegerField(required=False, min_value=1, max_value=65536)
    concurrency = forms.IntegerField(initial=4, min_value=1, max_value=64, help_text="Requests open at once.")
    rate_per_minute = forms.IntegerField(required=False, min_value=1, label="Requests per minute (at most)")

    def __init__(self, *args, splits, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = splits

    def clean_options(self) -> dict:
        text = (self.cleaned_data.get("options") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"Not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("A JSON object of option names and values.")
        return value


def runnable(split) -> bool:
    return bool(plugin_for(split.benchmark.scorer).runner)
