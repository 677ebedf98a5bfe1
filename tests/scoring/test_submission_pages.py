"""The submission pages: detail with score and intervals, failure report, and privacy."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import pipeline, services
from scoring.models import Score
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory


@pytest.fixture
def submission(dummy_benchmark, settings, user):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy")
    for i in range(2):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return services.submission_create(
        user=user, split=split, model_entry=ModelEntryFactory(owner=user), uploaded_file=SimpleUploadedFile("p.txt", b"1\n0\n")
    )


@pytest.mark.django_db
def test_detail_page_shows_the_score_once_scored(client, user, submission):
    client.force_login(user)
    assert "Queued" in client.get(f"/submissions/{submission.pk}/").content.decode()
    pipeline.submission_score(submission_id=submission.pk, worker="w")
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "50.00" in html and "dummy-1" in html and "Per-sample results" in html


@pytest.mark.django_db
def test_detail_page_shows_a_pending_judgement_with_its_range(client, user, submission):
    pipeline.submission_score(submission_id=submission.pk, worker="w")
    Score.objects.filter(submission=submission).update(
        overall=None, details={"status_text": "awaiting judgement (3 items)", "range": {"overall": [40.0, 55.0]}}
    )
    client.force_login(user)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "awaiting judgement (3 items)" in html and "40.00 (all undecided wrong) – 55.00 (all right)" in html


@pytest.mark.django_db
def test_failed_submission_lists_problems_with_line_and_field(client, user, submission):
    submission.file.save("bad.txt", SimpleUploadedFile("bad.txt", b"x\n"), save=True)
    pipeline.submission_score(submission_id=submission.pk, worker="w")
    client.force_login(user)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "Failed" in html and "<td>1</td><td>value</td><td>&#x27;x&#x27; is not a number</td>" in html


@pytest.mark.django_db
def test_someone_elses_submission_page_is_not_found(client, other_user, submission):
    client.force_login(other_user)
    assert client.get(f"/submissions/{submission.pk}/").status_code == 404


@pytest.mark.django_db
def test_upload_form_refuses_a_body_declared_over_the_limit_before_reading_it(client, user, settings):
    settings.SUBMISSION_MAX_BYTES = 10
    client.force_login(user)
    response = client.generic(
        "POST", "/submissions/new/", b"x", content_type="multipart/form-data; boundary=zz",
        CONTENT_LENGTH=str(50 * 1024 * 1024),
    )
    assert response.status_code == 413
    assert "larger than the limit of 10 bytes" in response.content.decode()


@pytest.mark.django_db
def test_the_upload_form_marks_a_repeated_run(client, user, dummy_benchmark):
    from scoring.models import Submission

    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy")
    SampleFactory(split=split, key="k0", position=0)
    client.force_login(user)
    page = client.get("/submissions/new/").content.decode()
    assert 'name="run_set"' in page and "Repeated run of" in page
    response = client.post("/submissions/new/", {"split": split.pk, "model_name": "M-7B", "thinking": "",
                                                  "run_set": "seed sweep", "file": SimpleUploadedFile("p.txt", b"1\n")})
    assert response.status_code == 302, response.content.decode()[:500]
    assert Submission.objects.get().run_set == "seed sweep"


@pytest.mark.django_db
def test_my_submissions_page_shows_a_page_at_a_time_newest_first(client, user, dummy_benchmark):
    """A heavy user's "My submissions" costs a page, not their whole history (issue 34): 50 a page, newest first,
    links to the older and newer pages, the same queries whatever the number of rows, a bad `?page=` refused."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.models import Submission
    from scoring.views import SUBMISSION_LIST_PAGE

    entry, split = ModelEntryFactory(owner=user), SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy")
    Submission.objects.bulk_create([Submission(model_entry=entry, split=split, submitter=user, status="scored")
                                    for _ in range(SUBMISSION_LIST_PAGE + 3)])
    newest = list(Submission.objects.filter(submitter=user).order_by("-created_at").values_list("pk", flat=True))
    client.force_login(user)

    def shown(query: str = "") -> tuple[list[int], str]:
        html = client.get(f"/submissions/{query}").content.decode()
        return [pk for pk in newest if f'href="/submissions/{pk}/"' in html], html

    first, html = shown()
    assert first == newest[:SUBMISSION_LIST_PAGE]
    assert f"page 1 of 2 ({SUBMISSION_LIST_PAGE + 3} submissions)" in html and 'href="?page=2" rel="next"' in html
    second, html = shown("?page=2")
    assert second == newest[SUBMISSION_LIST_PAGE:] and 'href="?page=1" rel="prev"' in html
    assert shown("?page=9")[0] == second  # past the last page: the last
    with CaptureQueriesContext(connection) as full:
        client.get("/submissions/")
    with CaptureQueriesContext(connection) as short:
        client.get("/submissions/?page=2")
    assert len(full.captured_queries) == len(short.captured_queries)
    bad = client.get("/submissions/?page=x")
    assert bad.status_code == 400 and "Bad parameter &#x27;page&#x27;: &#x27;x&#x27; is not a page number." in \
        bad.content.decode()
