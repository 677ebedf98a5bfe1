"""The Analysis tab from stored per-submission summaries (issue 34): written when a score lands, combined per
request without a per-sample row, and giving, figure by figure and value by value, the figures of the benchmark's
`figures(models, context)` over the same entries' per-sample rows."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard import selectors, services_analysis
from leaderboard.board_views import board_resolve
from leaderboard.core.board import board_build, filter_rows
from leaderboard.models import AnalysisSummary
from leaderboard.services_analysis import figure_context
from scoring import access
from scoring.benchmarks import plugin_for
from scoring.benchmarks.plan.models import PlanJudgement
from scoring.benchmarks.plan.services.judgements import plan_judgement_decide
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA
from scoring.models import SampleScore, Score, Split, Submission

pytestmark = pytest.mark.django_db

DEMOS = [("epic-bench", "make_demo_epic"), ("plan-bench", "make_demo_plan"), ("vge-bench", "make_demo_vge")]


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def _per_sample_figures(slug: str, params: dict[str, str]) -> dict[str, dict]:
    """The benchmark's figures over the board's entries read from their per-sample rows (`figures(models)`), with
    the site's reads (its summary context too: VGE's device graphs), as the page's JSON gives them."""
    benchmark, split, spec, query = board_resolve(params, slug)
    plugin = plugin_for(benchmark.scorer)
    public = access.ground_truth_figures_public(split=split)
    data = selectors.board_data(split=split)
    view = board_build(data.rows, spec, query, data.pairs)
    read = {"truth_keys": plugin.analysis_truth_keys} if public else {"detail_keys": plugin.hidden_split_detail_keys}
    models = selectors.analysis_models(rows=view.rows, **read)
    context = figure_context(plugin, split, view.rows, filter_rows(data.rows, query), site_reads=public)
    extra = {**context.extra, **plugin.analysis_summary_context_of(split, public=public)}
    if "run_submissions" in extra:  # VGE: the runs' per-λ counts as the site read them from the samples
        extra["runs"] = _runs_from_samples(extra.pop("run_submissions"))
    withheld = () if public else plugin.analysis_truth_figures
    found = plugin.analyses_function()(models, replace(context, extra=extra))
    return {f.key: json.loads(json.dumps(f.as_json())) for f in found if f.key not in withheld}


def _runs_from_samples(metas: list[dict]) -> list[dict]:
    """VGE's per-(submission, λ) counts read from the per-sample rows (what the site read per request before
    issue 34)."""
    out = []
    for meta in metas:
        counts: dict = {}
        for score, components, played, own in SampleScore.objects.filter(submission_id=meta["submission"]).order_by(
                "index").values_list("score", "components", "details__lambda", "details__task__lambda"):
            lam = next((v for v in (played, own) if isinstance(v, (int, float)) and v > 0), DEFAULT_LAMBDA)
            lam = int(lam) if float(lam).is_integer() else lam
            row = counts.setdefault(lam, [0, 0, 0.0])
            ssr = components.get("SSR")
            row[0] += 1
            row[1] += score is not None and score >= 100.0
            row[2] += float(ssr) if isinstance(ssr, (int, float)) else 0.0
        for lam, (n, hits, ssr_sum) in sorted(counts.items()) or [(None, (0, 0, 0.0))]:
            out.append({**meta, "lambda": lam, "episodes": n, "successes": hits, "ssr_sum": ssr_sum})
    return out


def _page_figures(client, slug: str, params: dict[str, str]) -> dict[str, dict]:
    page = client.get(f"/leaderboard/{slug}/analysis/", params)
    assert page.status_code == 200
    out = {}
    for key in page.context["figures"]:
        response = client.get(f"/leaderboard/{slug}/analysis/{key['f'].key}.json", params)
        payload = json.loads(response.content)
        out[key["f"].key] = {k: v for k, v in payload.items() if k not in ("benchmark", "split", "split_version")}
    return out


@pytest.mark.parametrize("slug,command", DEMOS)
def test_stored_summaries_give_the_figures_of_the_per_sample_rows(client, slug, command,
                                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command(command)
    split = Split.objects.get(benchmark__slug=slug, name="demo")
    scored = set(Submission.objects.filter(split=split, status=Submission.Status.SCORED).values_list("pk", flat=True))
    assert scored
    stored = set(AnalysisSummary.objects.filter(submission__split=split).values_list("submission_id", flat=True))
    assert stored == scored  # written when each score landed
    for params in ({"split": "demo"}, {"split": "demo", "entries": "all"}):
        expected = _per_sample_figures(slug, params)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            shown = _page_figures(client, slug, params)
        assert not [q["sql"] for q in queries.captured_queries if SampleScore._meta.db_table in q["sql"]]
        assert list(shown) == list(expected)
        for key, figure in expected.items():
            assert shown[key] == figure, key  # value by value


def test_a_stale_or_missing_summary_is_made_once_and_the_command_makes_them_all(client,
                                                                                 django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("make_demo_plan")
    split = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    AnalysisSummary.objects.filter(submission__split=split).update(version="old")
    first = AnalysisSummary.objects.filter(submission__split=split).order_by("pk").first()
    first.delete()
    before = _page_figures(client, "plan-bench", {"split": "demo"})
    versions = set(AnalysisSummary.objects.filter(submission__split=split).values_list("version", flat=True))
    assert versions == {plugin_for(split.benchmark.scorer).analysis_summary_version(split)}
    assert AnalysisSummary.objects.filter(submission__split=split).count() == \
        Submission.objects.filter(split=split, status=Submission.Status.SCORED).count()
    cache.clear()
    assert _page_figures(client, "plan-bench", {"split": "demo"}) == before
    AnalysisSummary.objects.all().delete()
    call_command("analysis_summaries", "--benchmark", "plan-bench")
    assert AnalysisSummary.objects.filter(submission__split=split).count() == \
        Submission.objects.filter(split=split, status=Submission.Status.SCORED).count()


def test_a_hidden_split_stores_only_what_it_discloses(django_capture_on_commit_callbacks):
    """On a split with hidden ground truth a summary is made from what the split discloses: no answer hint (the
    PLAN groups figure's ground truth), the same as the figures read before."""
    with django_capture_on_commit_callbacks(execute=True):
        call_command("make_demo_plan")
    split = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    split.hidden_ground_truth = True
    split.save(update_fields=["hidden_ground_truth"])
    plugin = plugin_for(split.benchmark.scorer)
    data = selectors.board_data(split=split)
    shown, _ = services_analysis.analysis_summaries_for(split=split, plugin=plugin, rows=data.rows)
    hidden = {s.submission_id: s.summary for s in shown}
    assert set(AnalysisSummary.objects.filter(submission__split=split, disclosure="hidden").values_list("submission_id", flat=True)) == \
        set(hidden)
    with_hint = [s.summary["groups"][4] for s in shown]  # ("with_hint", ...): no hint is disclosed
    assert all(cell[0] == 0 for cell in with_hint)


def test_a_persons_verdict_on_a_provisional_score_updates_its_summary(client, django_user_model,
                                                                        django_capture_on_commit_callbacks):
    """PLAN: a person deciding an item the judge left open changes the submission's verdicts while its score stays
    provisional (no new score lands): its summary follows (`scoring.events.score_updated`)."""
    with django_capture_on_commit_callbacks(execute=True):
        call_command("make_demo_plan")
    split = Split.objects.get(benchmark__slug="plan-bench", name="demo")
    judgement = PlanJudgement.objects.filter(status="open").order_by("pk").first()
    waiting = SampleScore.objects.filter(details__judgement_key=judgement.key, score__isnull=True,
                                         submission__split=split).values_list("submission_id", flat=True).first()
    before = AnalysisSummary.objects.get(submission_id=waiting, disclosure="public").summary
    person = django_user_model.objects.create_user("rita", password="pw-rita-123")
    person.groups.add(Group.objects.get(name="reviewer"))
    with django_capture_on_commit_callbacks(execute=True):
        plan_judgement_decide(judgement_id=judgement.pk, user=person, correct=True)
    assert not Score.objects.get(submission_id=waiting).details.get("final")  # still provisional
    after = AnalysisSummary.objects.get(submission_id=waiting, disclosure="public").summary
    assert after != before and after["columns"][0][0] == before["columns"][0][0] + 1  # one more decided item
    expected = _per_sample_figures("plan-bench", {"split": "demo"})
    cache.clear()
    assert _page_figures(client, "plan-bench", {"split": "demo"}) == expected


def test_vges_reads_for_the_figures_are_made_again_only_when_the_boards_submissions_or_entries_change(
        client, monkeypatch, django_capture_on_commit_callbacks):
    # VGE's figures read every upload's options besides the summaries (`vge_analysis_context`, ~20 ms at 2,000 a
    # read, issue 34): kept per process while the board's rows are the same submissions of the same entries
    from scoring.benchmarks.vge import selectors as vge_selectors
    from scoring.models import ModelEntry

    with django_capture_on_commit_callbacks(execute=True):
        call_command("make_demo_vge")
    real, calls = vge_selectors.vge_analysis_context, []
    monkeypatch.setattr(vge_selectors, "vge_analysis_context", lambda split: calls.append(split.pk) or real(split))
    params = {"split": "demo"}
    first = _page_figures(client, "vge-bench", params)
    assert len(calls) == 1
    # a score written again (its figures the same): the same submissions and entries, nothing read again
    split = Split.objects.get(benchmark__slug="vge-bench", name="demo")
    score = Score.objects.filter(submission__split=split, submission__source="upload").order_by("pk").first()
    Score.objects.filter(pk=score.pk).update(overall=score.overall + 1.0)
    cache.clear()  # the figures made again
    assert _page_figures(client, "vge-bench", params) == first
    assert len(calls) == 1  # with the reads kept
    # an upload's model entry renamed: read again, and the figures are the per-sample rows' own
    entry = ModelEntry.objects.get(pk=score.submission.model_entry_id)
    ModelEntry.objects.filter(pk=entry.pk).update(name=entry.name + " renamed")
    cache.clear()
    shown = _page_figures(client, "vge-bench", params)
    assert len(calls) == 2
    expected = _per_sample_figures("vge-bench", params)
    assert [k for k in shown if shown[k] != expected.get(k)] == []
