from django import forms

from scoring import benchmarks
from scoring.models import ModelEntry, Split, Submission


def scorer_options_chosen(data: dict) -> dict:
    """The scorer options a form's cleaned choices stand for: `raw` when the raw-responses box is ticked, and each
    benchmark upload option left away from its default (the upload form and the pre-check form alike)."""
    options: dict = {"raw": True} if data.get("raw_responses") else {}
    for name, option in benchmarks.upload_options().items():
        if data.get(name) and data[name] != option.default:
            options[name] = data[name]
    return options


class SplitChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Split) -> str:
        hidden = "hidden ground truth" if obj.hidden_ground_truth else "public ground truth"
        phase = f", phase {obj.phase.name}" if obj.phase_id and obj.phase else ""
        return f"{obj.benchmark.name} — {obj.name} (v{obj.version}, {hidden}{phase})"


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
        required=False, label="The file holds raw model responses (the scorer parses them first)"
    )
    # then each benchmark's upload options (`BenchmarkPlugin.upload_options`), added in __init__
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Note (optional)")
    run_set = forms.CharField(
        max_length=60, required=False, label="Repeated run of (optional)",
        help_text="The same label on several uploads of this model to this split marks them as runs of one variant "
                  "(the EPIC paper averages 6 runs of local models, 2 of API models): the board shows their mean "
                  "and spread.",
    )

    def scorer_options(self) -> dict:
        """The scorer options the form's choices stand for (the API's `raw` and `options`)."""
        return scorer_options_chosen(self.cleaned_data)

    def __init__(self, *args, splits=None, **kwargs):
        super().__init__(*args, **kwargs)
        # Offered: the open splits. Taken: any split, so that one chosen elsewhere (an old page, a link) and closed
        # since gets the service's own reason (its phase's dates, no samples) instead of "not a valid choice".
        field = self.fields["split"]
        field.queryset = Split.objects.select_related("benchmark", "phase")
        if splits is not None:
            field.widget.choices = [("", field.empty_label)] + [(s.pk, field.label_from_instance(s)) for s in splits]
        fields = list(self.fields.items())
        at = next(i for i, (name, _) in enumerate(fields) if name == "note")
        offered = [(name, forms.ChoiceField(choices=option.choices, required=False, initial=option.default,
                                            label=option.label, help_text=option.help))
                   for name, option in benchmarks.upload_options().items()]
        self.fields = dict(fields[:at] + offered + fields[at:])



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
    # "withdraw": sent by the confirmation page only; a withdrawal without it is asked again there first
    confirm = forms.CharField(required=False, widget=forms.HiddenInput)

    def withdrawal_confirmed(self) -> bool:
        return self.cleaned_data.get("confirm") == "withdraw"
