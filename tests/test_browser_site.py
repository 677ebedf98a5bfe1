"""In a real Chromium against a real daphne server: sign up, upload through the form, see the score."""
import pytest

from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.browser


def test_sign_up_upload_and_see_the_scored_submission(asgi_server, page, tmp_path):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    prediction = tmp_path / "pred.txt"
    prediction.write_text("1\n1\n0\n0\n")

    page.goto(f"{asgi_server}/accounts/signup/")
    page.fill("#id_username", "erin")
    page.fill("#id_password1", "a-long-pass-77")
    page.fill("#id_password2", "a-long-pass-77")
    page.click("form.form button[type=submit]")
    page.wait_for_url(f"{asgi_server}/")

    page.click("text=Submit")
    page.select_option("#id_split", label="Dummy Bench — dev (v1, public ground truth)")
    page.fill("#id_model_name", "Erin-VL-7B")
    page.set_input_files("#id_file", str(prediction))
    page.click("form.form button[type=submit]")

    page.wait_for_selector("text=Submission #")
    assert page.locator("#status").inner_text() == "Scored"
    assert "50.00" in page.locator(".big").inner_text()
    page.click("text=My submissions")
    assert "Erin-VL-7B" in page.locator("table").inner_text()


def test_empty_upload_shows_the_error_on_the_form(asgi_server, page, tmp_path, django_user_model):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy")
    SampleFactory(split=split, key="k0")  # the form offers splits with samples only (issue 30)
    django_user_model.objects.create_user("frank", password="pw-frank-123")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    from tests.conftest import login_page

    login_page(page, asgi_server, "frank", "pw-frank-123")
    page.goto(f"{asgi_server}/submissions/new/")
    page.select_option("#id_split", label="Dummy Bench — dev (v1, public ground truth)")
    page.fill("#id_model_name", "Frank-VL")
    page.set_input_files("#id_file", str(empty))
    page.click("form.form button[type=submit]")
    assert "empty" in page.locator(".errorlist, .errors").first.inner_text()
