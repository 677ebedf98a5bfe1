from django import forms

from notifications.models import Event


class MailForm(forms.Form):
    email_on_finish = forms.BooleanField(required=False, label="Mail me when a submission of mine is scored, fails "
                                                              "or is re-scored")


class WebhookForm(forms.Form):
    url = forms.CharField(max_length=2000, label="Payload URL",
                          widget=forms.URLInput(attrs={"placeholder": "https://example.org/hooks/ebh"}))
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple,
                                       initial=[e.value for e in Event])
    description = forms.CharField(max_length=200, required=False)
