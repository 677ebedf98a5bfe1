"""In a real Chromium against a real daphne server: a private submission is scored and shown to its submitter only;
another user and an anonymous reader find it on no board and cannot open it; made public, it is on the board."""
from __future__ import annotations

import pytest

from scoring.models import Submission
from tests.conftest import login_page
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.browser


def test_a_private_submission_is_invisible_to_others_and_on_no_board(asgi_server, chromium, tmp_path,
                                                                      django_user_model):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy",
                         hidden_ground_truth=False)
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    django_user_model.objects.create_user("ines", password="pw-ines-123")
    django_user_model.objects.create_user("omar", password="pw-omar-123")
    prediction = tmp_path / "pred.txt"
    prediction.write_text("1\n1\n0\n0\n")

    owner = chromium.new_context().new_page()
    owner.set_default_timeout(15000)
    login_page(owner, asgi_server, "ines", "pw-ines-123")
    owner.goto(f"{asgi_server}/submissions/new/")
    owner.select_option("#id_split", label="Dummy Bench — dev (v1, public ground truth)")
    owner.fill("#id_model_name", "Hidden-VL-3B")
    owner.select_option("#id_kind", "open-source")
    owner.check("input[name=visibility][value=private]")
    owner.set_input_files("#id_file", str(prediction))
    owner.click("form.form button[type=submit]")
    owner.wait_for_selector("text=Submission #")
    assert owner.locator("#status").inner_text() == "Scored"
    assert "Private" in owner.locator("#upload-visibility").inner_text()
    pk = Submission.objects.get().pk

    other = chromium.new_context().new_page()
    other.set_default_timeout(15000)
    other.goto(f"{asgi_server}/leaderboard/dummy-bench/")
    assert "Hidden-VL-3B" not in other.content()
    login_page(other, asgi_server, "omar", "pw-omar-123")
    other.goto(f"{asgi_server}/leaderboard/dummy-bench/")
    assert "Hidden-VL-3B" not in other.content()
    assert other.goto(f"{asgi_server}/submissions/{pk}/").status == 404
    assert other.goto(f"{asgi_server}/submissions/{pk}/samples/").status == 404
    assert other.goto(f"{asgi_server}/api/leaderboards/dummy-bench/").status == 200
    assert "Hidden-VL-3B" not in other.content()

    owner.check("#visibility-form input[value=public]")
    owner.click("#visibility-form button[type=submit]")
    owner.wait_for_selector("text=is now public")
    other.goto(f"{asgi_server}/leaderboard/dummy-bench/")
    assert "Hidden-VL-3B" in other.locator("table").first.inner_text()
    owner.context.close()
    other.context.close()
