from django import forms

from scoring.models import ModelEntry, Split


class SplitChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Split) -> str:
        hidden = "hidden ground truth" if obj.hidden_ground_truth else "public ground truth"
        return f"{obj.benchmark.name} — {obj.name} (v{obj.version}, {hidden})"


class SubmissionForm(forms.Form):
    split = SplitChoiceField(queryset=Split.objects.none(), label="Benchmark split")
    model_name = forms.CharField(max_length=200, label="Model name", help_text="A new name creates a model entry owned by you.")
    thinking = forms.ChoiceField(choices=ModelEntry.Thinking.choices, required=False, label="Thinking mode")
    file = forms.FileField(label="Prediction file")
    raw_responses = forms.BooleanField(
        required=False, label="The file holds raw model responses (EPIC-Bench: parse them first)"
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Note (optional)")
    run_set = forms.CharField(
        max_length=60, required=False, label="Repeated run of (optional)",
        help_text="The same label on several uploads of this model to this split marks them as runs of one variant "
                  "(the EPIC paper averages 6 runs of local models, 2 of API models): the board shows their mean "
                  "and spread.",
    )

    def __init__(self, *args, splits=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = splits if splits is not None else Split.objects.all()

