"""Board pages, exports, plots and the read API against the real database."""
import csv
import io

import pytest
from django.core.cache import cache

from leaderboard.core.board import PROVENANCE_COLUMNS
from leaderboard.services import board_comparisons_update
from tests.leaderboard.conftest import (
    EPIC_LEAVES,
    board_test_split,
    make_entry,
    make_reported,
    make_scored,
    random_scores,
)


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()


@pytest.fixture
def board(epic_split):
    gpt = make_entry("GPT-Test", kind="proprietary", thinking="")
    qwen = make_entry("Qwen-Test-7B", params=7)
    human = make_entry("Human", kind="human", thinking="")
    make_reported(epic_split, gpt, 40.0, {"BA": 30.0, "FP": 50.0})
    make_reported(epic_split, human, 90.0, {"BA": 95.0})
    old = make_reported(epic_split, qwen, 20.0, {"BA": 10.0})
    scored = make_scored(epic_split, qwen, random_scores(1, 40, 0.6),
                         breakdown={"FP": 61.0, EPIC_LEAVES[0]: 70.0, EPIC_LEAVES[1]: 52.0})
    return {"gpt": gpt, "qwen": qwen, "old": old, "scored": scored}


@pytest.mark.django_db
def test_board_shows_paper_columns_grouped_with_best_marks(client, board):
    response = client.get("/leaderboard/epic-bench/")
    assert response.status_code == 200
    html = response.content.decode()
    for header in ("Average", "BA", "SRA", "ECA", "GD", "FP", "VM", "AR", "CR", "PR"):
        assert f">{header}<span" in html
    for group in ("Target Localization", "Navigation", "Manipulation"):
        assert group in html
    rows = response.context["view"].rows
    names = [r.model_name for r in rows]
    assert names.count("Qwen-Test-7B") == 1, "best entry per model by default"
    assert 'class="best"' in html


@pytest.mark.django_db
def test_all_entries_are_one_click_away(client, board):
    best = client.get("/leaderboard/epic-bench/").context["view"]
    every = client.get("/leaderboard/epic-bench/?entries=all").context["view"]
    assert len(every.rows) == len(best.rows) + 1
    assert board["old"].pk in {r.submission_id for r in every.rows}


@pytest.mark.django_db
def test_scored_rows_show_intervals_and_reported_rows_none(client, board):
    html = client.get("/leaderboard/epic-bench/?source=scored").content.decode()
    assert 'class="ci"' in html
    html = client.get("/leaderboard/epic-bench/?source=reported").content.decode()
    assert 'class="ci"' not in html


@pytest.mark.django_db
def test_leaves_come_with_the_table_hidden_until_expanded(client, board):
    html = client.get("/leaderboard/epic-bench/").content.decode()
    assert 'class="table board collapsed"' in html
    assert "FP-Ego" in html and 'data-parent="FP"' in html
    expanded = client.get("/leaderboard/epic-bench/?expand=1").content.decode()
    assert "collapsed" not in expanded.split('id="board-table"')[0][-80:]


@pytest.mark.django_db
def test_sort_by_a_column_orders_rows_and_missing_values_go_last(client, board):
    view = client.get("/leaderboard/epic-bench/?sort=BA").context["view"]
    values = [r.value("BA") for r in view.rows]
    present = [v for v in values if v is not None]
    assert present == sorted(present, reverse=True)
    assert values[len(present):] == [None] * (len(values) - len(present))
    asc = client.get("/leaderboard/epic-bench/?sort=BA&order=asc").context["view"]
    assert [r.value("BA") for r in asc.rows][0] == min(present)


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["sort=nope", "kind=alien", "min_params=x", "order=up", "entries=2", "thinking=?"])
def test_bad_parameters_answer_400_with_the_problem(client, board, query):
    response = client.get(f"/leaderboard/epic-bench/?{query}")
    assert response.status_code == 400
    assert "Bad parameter" in response.content.decode()
    api = client.get(f"/api/leaderboards/epic-bench/?{query}")
    assert api.status_code == 400 and api.json()["field"] == query.split("=")[0]


@pytest.mark.django_db
def test_unknown_benchmark_or_split_is_404_everywhere(client, board):
    for url in ("/leaderboard/nope/", "/leaderboard/epic-bench/?split=zzz", "/leaderboard/nope/export.csv",
                "/api/leaderboards/nope/", "/api/leaderboards/epic-bench/?split=zzz",
                "/leaderboard/epic-bench/plots/params.svg?split=zzz", "/leaderboard/epic-bench/export.xml",
                "/leaderboard/epic-bench/plots/pie.svg", "/models/no-such-model/"):
        assert client.get(url).status_code == 404, url


@pytest.mark.django_db
def test_csv_export_has_exactly_the_rows_and_columns_shown(client, board):
    page = client.get("/leaderboard/epic-bench/?kind=open-source,proprietary").context["view"]
    response = client.get("/leaderboard/epic-bench/export.csv?kind=open-source,proprietary")
    assert response["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    header, body = lines[0], lines[1:]
    assert [line[1] for line in body] == [r.model_name for r in page.rows]
    # then the reading the figures are under and why a row has none (EPIC scores two readings), then the row's type
    # and provenance keys (issue 29)
    assert [h for h in header if not h.endswith(("_ci_low", "_ci_high"))][7:] == [
        *(c.key for c in page.columns), "reading", "reading_note", "type", "scorer_version", *PROVENANCE_COLUMNS]


@pytest.mark.django_db
def test_json_export_of_an_empty_board_is_empty_rows_not_an_error(client, board):
    response = client.get("/leaderboard/epic-bench/export.json?q=nothing-matches-this")
    assert response.status_code == 200
    assert response.json()["rows"] == []
    csv_body = client.get("/leaderboard/epic-bench/export.csv?q=nothing-matches-this").content.decode()
    assert csv_body.strip().count("\n") == 0  # header only


@pytest.mark.django_db
def test_api_rows_carry_values_intervals_and_directions(client, board):
    body = client.get("/api/leaderboards/vge-bench/").json()
    assert body["benchmark"] == "vge-bench" and body["rows"] == []
    assert {c["key"]: c["direction"] for c in body["columns"]}["GVPE"] == "down"
    epic = client.get("/api/leaderboards/epic-bench/?source=scored").json()
    row = epic["rows"][0]
    assert row["source"] == "scored" and len(row["intervals"]["overall"]) == 2
    reported = client.get("/api/leaderboards/epic-bench/?source=reported").json()["rows"]
    assert all(r["intervals"] == {} for r in reported)


@pytest.mark.django_db
def test_api_is_in_the_openapi_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/leaderboards/{benchmark}/" in schema["paths"]
    assert "/api/submissions/precheck/" in schema["paths"]


@pytest.mark.django_db
def test_html_in_model_names_is_shown_as_text(client, epic_split):
    evil = make_entry("<script>alert(1)</script>", description="<img src=x onerror=alert(2)>")
    make_reported(epic_split, evil, 10.0)
    for url in ("/leaderboard/epic-bench/", f"/models/{evil.slug}/"):
        html = client.get(url).content.decode()
        assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "<img src=x" not in html
    svg = client.get("/leaderboard/epic-bench/plots/categories.svg").content.decode()
    assert "<script>" not in svg


def _row_count(client, url="/leaderboard/epic-bench/?entries=all") -> int:
    return client.get(url).content.decode().count('data-submission="')


@pytest.mark.django_db
def test_a_new_score_shows_at_once_when_the_pipeline_bumps_the_version(client, board, epic_split):
    from scoring.selectors import board_cache_invalidate

    before = _row_count(client)
    make_scored(epic_split, make_entry("Newcomer"), random_scores(3, 40, 0.9))
    board_cache_invalidate(split_id=epic_split.pk)  # what scoring.events does when a score lands
    assert _row_count(client) == before + 1


@pytest.mark.django_db
def test_a_score_written_by_another_process_shows_within_a_second(client, board, epic_split):
    import time

    before = _row_count(client)
    make_scored(epic_split, make_entry("Elsewhere"), random_scores(4, 40, 0.9))  # no version bump here
    time.sleep(1.1)
    assert _row_count(client) == before + 1


@pytest.mark.django_db
def test_adjacent_ranks_without_significant_difference_are_marked(client, epic_split):
    a = make_scored(epic_split, make_entry("A"), random_scores(5, 40, 0.5))
    same = [*random_scores(5, 40, 0.5)]
    same[0], same[1] = same[1], same[0]  # nearly the same answers: not significantly different
    b = make_scored(epic_split, make_entry("B"), same)
    c = make_scored(epic_split, make_entry("C"), [0.0] * 40)
    for sub in (a, b, c):
        board_comparisons_update(submission_id=sub.pk)
    view = client.get("/leaderboard/epic-bench/").context["view"]
    order = [r.submission_id for r in view.rows]
    assert order[-1] == c.pk
    assert order[1] in view.ties, "the second of two near-identical systems is marked"
    assert c.pk not in view.ties, "a clearly worse system is not"
    assert "≈" in client.get("/leaderboard/epic-bench/").content.decode()


@pytest.mark.django_db
def test_board_page_runs_no_per_sample_queries(client, board, django_assert_max_num_queries):
    client.get("/leaderboard/epic-bench/")  # warm the cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/leaderboard/epic-bench/").status_code == 200
    assert not any("sample" in q["sql"].lower() for q in ctx.captured_queries)
    assert len(ctx.captured_queries) <= 4


@pytest.mark.django_db
def test_plots_are_svg_and_follow_the_filters(client, board):
    response = client.get("/leaderboard/epic-bench/plots/params.svg")
    assert response["Content-Type"] == "image/svg+xml"
    assert "Qwen-Test-7B" in response.content.decode()
    filtered = client.get("/leaderboard/epic-bench/plots/categories.svg?kind=proprietary").content.decode()
    assert "GPT-Test" in filtered and "Qwen-Test-7B" not in filtered


@pytest.mark.django_db
def test_model_page_lists_submissions_and_card_fields(client, board):
    qwen = board["qwen"]
    qwen.organisation = "Org & Co"
    qwen.save()
    html = client.get(f"/models/{qwen.slug}/").content.decode()
    assert "Org &amp; Co" in html and "7 B" in html
    assert html.count("reported in paper") == 1 and f"scored here #{board['scored'].pk}" in html
    # Qwen's scored entry (about 60) leads the non-human rows, so GPT's chart compares against it.
    chart = client.get(f"/models/{board['gpt'].slug}/chart/epic-bench.svg").content.decode()
    assert "Best: Qwen-Test-7B" in chart and "Human: Human" in chart
    own = client.get(f"/models/{qwen.slug}/chart/epic-bench.svg").content.decode()
    assert "Best:" not in own, "the best model is not compared with itself"


@pytest.mark.django_db
def test_filters_by_parameter_range_thinking_and_search(client, board):
    view = client.get("/leaderboard/epic-bench/?min_params=5&max_params=10").context["view"]
    assert {r.model_name for r in view.rows} == {"Qwen-Test-7B"}
    view = client.get("/leaderboard/epic-bench/?thinking=unknown").context["view"]
    assert {r.model_name for r in view.rows} == {"GPT-Test", "Human"}
    view = client.get("/leaderboard/epic-bench/?q=gpt").context["view"]
    assert [r.model_name for r in view.rows] == ["GPT-Test"]


@pytest.mark.django_db
def test_model_page_charts_load_for_every_split_the_model_is_on(client, epic_dev):
    import re

    entry = make_entry("Dev-Only-3B", params=3)
    make_scored(epic_dev, entry, [1.0, 0.0] * 5, breakdown={"BA": 40.0, "FP": 60.0})
    html = client.get(f"/models/{entry.slug}/").content.decode()
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert sources and all("split=dev" in s for s in sources)
    for src in sources:
        response = client.get(src.replace("&amp;", "&"))
        assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"


@pytest.mark.django_db
def test_open_models_without_a_stated_size_use_the_size_in_their_name(client, epic_split):
    make_reported(epic_split, make_entry("Paper-VL-27B"), 30.0)
    view = client.get("/leaderboard/epic-bench/?min_params=20&max_params=30").context["view"]
    assert [r.model_name for r in view.rows] == ["Paper-VL-27B"]
    assert "Paper-VL-27B" in client.get("/leaderboard/epic-bench/plots/params.svg").content.decode()


@pytest.mark.django_db
def test_a_score_recomputed_in_place_shows_within_a_second(client, board):
    import time

    from scoring.models import Score

    assert "99.50" not in client.get("/leaderboard/epic-bench/").content.decode()  # cached now
    # A PLAN score finalised after human judgement changes the Score row only (no new submission).
    Score.objects.filter(submission=board["scored"]).update(overall=99.5)
    time.sleep(1.1)
    assert "99.50" in client.get("/leaderboard/epic-bench/").content.decode()


@pytest.mark.django_db
def test_a_provisional_score_is_marked_on_the_board(client, epic_split):
    from scoring.models import Score

    sub = make_scored(epic_split, make_entry("Judged-VL"), [1.0] * 40)
    Score.objects.filter(submission=sub).update(
        overall=None, details={"final": False, "status_text": "awaiting judgement (3 items)"})
    html = client.get("/leaderboard/epic-bench/").content.decode()
    assert "awaiting judgement (3 items)" in html


def test_site_human_row_says_how_many_episodes_and_players(client, epic_split):
    human = make_entry("Human (site players)", kind="human", thinking="")
    submission = make_scored(epic_split, human, random_scores(5, 40, 0.9))
    submission.note = "12 episodes by 3 players (human baseline, played in the browser)"
    submission.save(update_fields=["note"])
    html = client.get("/leaderboard/epic-bench/").content.decode()
    assert "12 episodes by 3 players" in html


def test_plan_board_shows_judge_human_agreement_and_updates_when_a_check_is_recorded(client, admin_user):
    from scoring.benchmarks.plan.models import PlanAuditCheck
    from scoring.benchmarks.plan.services.audit import plan_audit_record

    split = board_test_split("plan-bench")
    common = {"split": split, "output_hash": "h", "dimension": "Spatial Cognition",
              "subtask": "OO", "judge_decided_by": "model", "judge": "judge-x", "draw": "seed-1"}
    for i, (judge, human) in enumerate([(True, True), (False, False), (True, False)]):
        PlanAuditCheck.objects.create(item_key=f"i{i}", item_fingerprint=f"f{i}", judge_correct=judge,
                                      human_correct=human, **common)
    pending = PlanAuditCheck.objects.create(item_key="i9", item_fingerprint="f9", judge_correct=True, **common)
    html = client.get("/leaderboard/plan-bench/").content.decode()
    assert "<strong>2 of 3</strong> audited verdicts (66.7%)" in html

    plan_audit_record(check_id=pending.pk, user=admin_user, correct=True)
    assert "<strong>3 of 4</strong> audited verdicts (75.0%)" in client.get("/leaderboard/plan-bench/").content.decode()


@pytest.mark.django_db
def test_board_page_carries_the_fingerprint_of_the_data_it_shows(client, board, epic_split):
    # The live socket compares it on reconnect; it must be the one of the rows on the page, before and after a score.
    from leaderboard.selectors import board_fingerprint

    def shown() -> str:
        html = client.get("/leaderboard/epic-bench/").content.decode()
        return html.split('data-fingerprint="', 1)[1].split('"', 1)[0]

    before = shown()
    assert before == board_fingerprint(split_id=epic_split.pk)
    make_scored(epic_split, make_entry("Newcomer-3B"), random_scores(2, 40, 0.9))
    cache.clear()  # as after the fingerprint's one-second life
    after = shown()
    assert after != before and after == board_fingerprint(split_id=epic_split.pk)
