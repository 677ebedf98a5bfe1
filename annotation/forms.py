"""Forms of the annotation pages."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from accounts.roles import annotators_q, curators_q
from annotation.models import LEAF_CHOICES


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=100)
    leaf = forms.ChoiceField(choices=LEAF_CHOICES, help_text="The EPIC leaf task.")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    forbid_mask_when_infeasible = forms.BooleanField(required=False)


class UploadForm(forms.Form):
    file = forms.FileField(help_text="An image, or a zip of images (VisualMatching: one folder of two images per item).")


class AssignForm(forms.Form):
    """Assignment by ticking items on the project page (or every unassigned item at once)."""

    items = forms.MultipleChoiceField(
        help_text="Tick the items to assign, or choose 'unassigned' for all unassigned items.",
        error_messages={"required": "Tick at least one item (or choose all unassigned items)."},
    )
    assignee = forms.ModelChoiceField(queryset=get_user_model().objects.none(), required=False,
                                      help_text="Leave empty to unassign.")

    def __init__(self, *args, project=None, **kwargs):
        super().__init__(*args, **kwargs)
        ids = project.items.values_list("pk", "name") if project is not None else []
        self.fields["items"].choices = [("unassigned", "All unassigned items"), *((str(pk), name) for pk, name in ids)]
        self.fields["assignee"].queryset = (
            get_user_model().objects.filter(annotators_q() | curators_q())
            .distinct().order_by("username")
        )
