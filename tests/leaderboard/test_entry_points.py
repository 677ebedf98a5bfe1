"""Entry points (issue 30): Submit in the menu and on the home page for everyone (to the login, then back), the format
page's Submit link keeping its benchmark, the command-line client named on the site and in the README, and a
confirmation before a withdrawal that works without JavaScript."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import services
from scoring.models import ChangeRecord, Sample, Split
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_anonymous_visitors_find_submit_in_the_menu_and_on_the_home_page(client):
    """"anonymous visitors see no Submit link in the menu or on the home page": "The Submit entry in the menu for
    everyone (it leads to login when needed)"."""
    html = client.get("/").content.decode()
    assert '<a href="/submissions/new/" id="nav-submit">Submit</a>' in html
    assert 'href="/submissions/new/?benchmark=epic-bench"' in html and 'id="home-submit"' in html
    response = client.get("/submissions/new/?benchmark=epic-bench")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/submissions/new/%3Fbenchmark%3Depic-bench"


def test_a_new_user_signs_up_from_the_login_page_and_comes_back_to_the_form(client):
    """"it leads to login when needed" — and back: a new user who signs up there returns to the upload form."""
    login = client.get("/accounts/login/?next=/submissions/new/%3Fbenchmark%3Depic-bench").content.decode()
    assert 'href="/accounts/signup/?next=/submissions/new/%3Fbenchmark%3Depic-bench"' in login
    response = client.post("/accounts/signup/", {"username": "newcomer", "password1": "a-long-pass-9876",
                                                 "password2": "a-long-pass-9876",
                                                 "next": "/submissions/new/?benchmark=epic-bench"})
    assert response.status_code == 302 and response["Location"] == "/submissions/new/?benchmark=epic-bench"
    elsewhere = client.post("/accounts/signup/", {"username": "other", "password1": "a-long-pass-9876",
                                                  "password2": "a-long-pass-9876", "next": "https://evil.example/"})
    assert elsewhere["Location"] == "/"  # never to another site


def test_the_format_pages_submit_link_keeps_the_benchmark(client, user):
    """"the format page's Submit link drops the chosen benchmark"."""
    html = client.get("/leaderboard/plan-bench/format/").content.decode()
    assert 'href="/submissions/new/?benchmark=plan-bench" id="format-submit"' in html
    chosen = Split.objects.filter(benchmark__slug="plan-bench", is_default=True).order_by("-version").first()
    Sample.objects.create(split=chosen, key="q0")  # the form offers splits with samples only (issue 30)
    client.force_login(user)
    form = client.get("/submissions/new/?benchmark=plan-bench").content.decode()
    assert f'<option value="{chosen.pk}" selected>' in form


def test_the_client_is_named_on_the_submit_page_the_format_page_and_in_the_readme(client, user):
    """"the CLI client (`python -m scoring.client`) is mentioned nowhere on the site or in the README"."""
    fmt = client.get("/leaderboard/epic-bench/format/").content.decode()
    assert ("python -m scoring.client submit --url http://testserver --token YOUR_TOKEN --benchmark epic-bench "
            '--model &quot;My-VLM-7B&quot; --raw predictions.jsonl') in fmt
    client.force_login(user)
    assert "python -m scoring.client submit" in client.get("/submissions/new/").content.decode()
    assert "python -m scoring.client submit" in (ROOT / "README.md").read_text()


@pytest.fixture
def submission(dummy_benchmark, user):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy")
    for i in range(2):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return services.submission_create(user=user, split=split, model_entry=ModelEntryFactory(owner=user),
                                      uploaded_file=SimpleUploadedFile("p.txt", b"1\n0\n"))


def test_withdrawing_asks_for_confirmation_first(client, user, submission):
    """"withdrawing "for good" has no confirmation": now "a confirmation before a withdrawal", a page that works
    without JavaScript."""
    client.force_login(user)
    url = f"/submissions/{submission.pk}/visibility/"
    assert client.post(url, {"visibility": "private"}).status_code == 302  # what can be undone is not asked again
    submission.refresh_from_db()
    assert submission.visibility == "private"
    asked = client.post(url, {"visibility": "withdrawn"})
    html = asked.content.decode()
    assert asked.status_code == 200 and "for good?" in html
    assert '<input type="hidden" name="confirm" value="withdraw">' in html and 'id="withdraw-cancel"' in html
    submission.refresh_from_db()
    assert submission.visibility == "private"
    assert ChangeRecord.objects.filter(object_id=submission.pk, subject="submission").count() == 1
    assert client.post(url, {"visibility": "withdrawn", "confirm": "withdraw"}).status_code == 302
    submission.refresh_from_db()
    assert submission.visibility == "withdrawn"
