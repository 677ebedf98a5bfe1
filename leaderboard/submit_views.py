"""The free format pre-check page: validate a prediction file without scoring it or using quota."""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from leaderboard.selectors import benchmarks_with_option
from scoring import benchmarks
from scoring.benchmarks import plugins
from scoring.forms import scorer_options_chosen
from scoring.models import Split
from scoring.precheck import submission_precheck
from scoring.selectors import splits_open_for_submission


class PrecheckForm(forms.Form):
    split = forms.ModelChoiceField(queryset=Split.objects.none(), help_text="Benchmark and split the file is for.")
    file = forms.FileField(help_text="The prediction file; it is checked, not stored and not scored.")
    raw_responses = forms.BooleanField(
        required=False, label=f"The file holds raw model responses ({benchmarks_with_option('raw')}: parse them first)",
        help_text="Tick it as you will on the upload form: the file is read the way it will be scored.")
    model_name = forms.CharField(
        max_length=200, required=False, label="Model name (optional)",
        help_text="As you will enter it on the upload form: a benchmark may read the file by it (e.g. the coordinate "
                  "system of the model's family where the coordinate mode is left at auto).")
    # then each benchmark's upload options (`BenchmarkPlugin.upload_options`), as on the upload form

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = splits_open_for_submission()
        for name, option in benchmarks.upload_options().items():
            self.fields[name] = forms.ChoiceField(choices=option.choices, required=False, initial=option.default,
                                                  label=option.label, help_text=option.help)

    def scorer_options(self) -> dict:
        """The scorer options the form's choices stand for, as the upload form's."""
        return scorer_options_chosen(self.cleaned_data)

    def clean_file(self):
        f = self.cleaned_data["file"]
        if f.size > settings.SUBMISSION_MAX_BYTES:
            raise forms.ValidationError(f"The file is {f.size} bytes, over the limit of {settings.SUBMISSION_MAX_BYTES}.")
        return f


def precheck(request: HttpRequest) -> HttpResponse:
    result = None
    status = 200
    if request.method == "POST":
        form = PrecheckForm(request.POST, request.FILES)
        if form.is_valid():
            data = form.cleaned_data
            result = submission_precheck(split=data["split"], uploaded_file=data["file"],
                                         options=form.scorer_options(), model=data["model_name"].strip())
        else:
            status = 400
    else:
        form = PrecheckForm(initial={"split": request.GET.get("split")})
    return render(request, "leaderboard/precheck.html", {
        "form": form, "result": result, "benchmarks": [(p.slug, p.title) for p in plugins()]}, status=status)
