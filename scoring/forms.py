from django import forms

from scoring.benchmarks.epic.core.fields import AUTO, COORDINATE_SYSTEMS, FAMILY_COORDINATES
from scoring.models import ModelEntry, Split, Submission

COORD_MODE_HELP = ("EPIC-Bench only: how boxes and points are measured. Auto decides per sample from its numbers, "
                   "and reads 0-1000 answers on images over 1000 px as pixels: choose the mode your model answers "
                   "in. Usual: " + "; ".join(f"{family} {mode}" for family, mode in FAMILY_COORDINATES) + ".")


class SplitChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Split) -> str:
        hidden = "hidden ground truth" if obj.hidden_ground_truth else "public ground truth"
        return f"{obj.benchmark.name} — {obj.name} (v{obj.version}, {hidden})"


class SubmissionForm(forms.Form):
    split = SplitChoiceField(queryset=Split.objects.none(), label="Benchmark split")
    model_name = forms.CharField(max_length=200, label="Model name", help_text="A new name creates a model entry owned by you.")
    thinking = forms.ChoiceField(choices=ModelEntry.Thinking.choices, required=False, label="Thinking mode")
    kind = forms.ChoiceField(
        choices=[("", "Not stated"), *[(k.value, k.label) for k in ModelEntry.Kind if k.value not in ("", "human")]],
        required=False, label="Open or proprietary (a new model)",
        help_text="Shown on the boards; you can edit it and the model's other facts later on the model's edit page.")
    organisation = forms.CharField(max_length=200, required=False, label="Organisation (a new model)")
    parameters_b = forms.FloatField(required=False, min_value=0, label="Parameters in billions (a new model)")
    visibility = forms.ChoiceField(
        choices=[(v.value, v.label) for v in (Submission.Visibility.PUBLIC, Submission.Visibility.PRIVATE)],
        initial=Submission.Visibility.PUBLIC, required=False, widget=forms.RadioSelect, label="Who sees the score",
        help_text="You can make it public or private later, or withdraw it, on its page.")
    file = forms.FileField(label="Prediction file")
    raw_responses = forms.BooleanField(
        required=False, label="The file holds raw model responses (EPIC-Bench: parse them first)"
    )
    coord_mode = forms.ChoiceField(
        choices=[(mode, "auto (detect per sample)" if mode == AUTO else mode) for mode in COORDINATE_SYSTEMS],
        required=False, initial=AUTO, label="Coordinate mode", help_text=COORD_MODE_HELP)
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Note (optional)")
    run_set = forms.CharField(
        max_length=60, required=False, label="Repeated run of (optional)",
        help_text="The same label on several uploads of this model to this split marks them as runs of one variant "
                  "(the EPIC paper averages 6 runs of local models, 2 of API models): the board shows their mean "
                  "and spread.",
    )

    def scorer_options(self) -> dict:
        """The scorer options the form's choices stand for (the API's `raw` and `options`)."""
        data = self.cleaned_data
        options: dict = {"raw": True} if data.get("raw_responses") else {}
        if data.get("coord_mode") and data["coord_mode"] != AUTO:
            options["coord_mode"] = data["coord_mode"]
        return options

    def __init__(self, *args, splits=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = splits if splits is not None else Split.objects.all()



class ModelEntryForm(forms.ModelForm):
    """What an owner or a curator may change of a model entry (scoring.services.MODEL_ENTRY_EDITABLE)."""

    paper_url = forms.URLField(required=False, assume_scheme="https", label="Paper")
    code_url = forms.URLField(required=False, assume_scheme="https", label="Code")
    model_url = forms.URLField(required=False, assume_scheme="https", label="Model card or weights")

    class Meta:
        model = ModelEntry
        fields = ["organisation", "kind", "parameters_b", "thinking_budget", "input_resolution", "open_weights",
                  "paper_url", "code_url", "model_url", "description"]
        labels = {"kind": "Open or proprietary", "parameters_b": "Parameters (billions)",
                  "open_weights": "Open weights"}
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class VisibilityForm(forms.Form):
    visibility = forms.ChoiceField(choices=Submission.Visibility.choices, widget=forms.RadioSelect)
