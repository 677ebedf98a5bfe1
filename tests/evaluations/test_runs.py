"""Evaluation runs on the hub against the stand-in model over a real socket: each benchmark ends in a scored hub-run
row; a run interrupted mid-way resumes without asking any sample twice; 429s and timeouts are retried; a cancelled
run keeps what it had; the API key is in no log, page or export; the command line's file scores as the hub's run."""
from __future__ import annotations

import json
import logging
import socket
import sys
import time

import pytest
from django.test import Client

from evaluations import execution, services
from evaluations.models import EvaluationRun, RunAnswer, RunLine
from leaderboard.format_files import split_inputs_zip
from scoring.cli import main as cli_main
from scoring.models import Submission
from scoring.pipeline import submission_score
from scoring.standin import StandInModel
from tests.scoring.bench_splits import epic_split, plan_split, vge_split

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "sk-run-secret-4242"


@pytest.fixture(autouse=True)
def _allow_loopback(settings):
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    settings.EVALUATIONS_LEASE_SECONDS = 1


def start(user, split, server, **kw) -> EvaluationRun:
    defaults = dict(model_name="Qwen2.5-VL-7B", base_url=server.base_url, api_key=KEY, concurrency=3)
    return services.run_create(user=user, split=split, **{**defaults, **kw})


def finish_scoring(run: EvaluationRun) -> list[Submission]:
    out = []
    for submission in run.submissions.all():
        submission_score(submission_id=submission.pk, worker="test")
        submission.refresh_from_db()
        assert submission.status == Submission.Status.SCORED, submission.error_message
        out.append(submission)
    return out


@pytest.mark.parametrize("which", ["epic", "plan", "vge"])
def test_a_run_ends_in_a_scored_hub_run_row(which, curator, tmp_path, settings, live_server) -> None:
    settings.EVALUATIONS_AGENT_API_URL = live_server.url
    split = {"epic": lambda: epic_split(tmp_path / "layout"), "plan": plan_split, "vge": vge_split}[which]()
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server)
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.SUBMITTED
    run.refresh_from_db()
    assert run.units_done == run.units_total == split.samples.count()
    assert run.requests == server.answered and run.api_key_sealed == ""
    assert run.prompt_tokens > 0 and run.model_seconds > 0
    [submission] = finish_scoring(run)
    assert submission.source == Submission.Source.HUB_RUN and "Run by the hub" in submission.note
    # PLAN's open answers wait for the judge (none is configured here): scored, provisional until judged
    assert submission.score.overall is not None or submission.provisional is not None
    client = Client()
    client.force_login(curator)
    assert client.get(f"/evaluations/{run.pk}/r1.jsonl").content == submission.file.open("rb").read()
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "Run by the hub" in page and "Qwen2.5-VL-7B" in page


def test_killed_mid_run_resumes_and_asks_no_sample_twice(curator) -> None:
    split = plan_split()
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server, k=2, concurrency=2)
        assert execution.run_execute(run_id=run.pk, stop_after=5) == EvaluationRun.Status.RUNNING  # "killed"
        assert execution.run_execute(run_id=run.pk) == execution.BUSY  # its "worker" beat a moment ago
        time.sleep(1.1)  # the lease runs out
        asked_before = server.answered
        assert 5 <= RunLine.objects.filter(run=run).count() < 2 * split.samples.count()
        assert RunAnswer.objects.filter(run=run).count() == asked_before  # every answer stored as it came
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.SUBMITTED
    assert server.answered == 2 * split.samples.count()  # each (repeat, sample) asked exactly once in all
    assert RunAnswer.objects.filter(run=run).count() == server.answered
    run.refresh_from_db()
    assert run.submissions.count() == 2 and {s.run_set for s in run.submissions.all()} == {f"hub-run-{run.pk}"}


@pytest.mark.parametrize("fail_with", ["429", "timeout"])
def test_429s_and_timeouts_are_retried(fail_with, curator, settings) -> None:
    settings.EVALUATIONS_REQUEST_TIMEOUT = 1
    split = plan_split()
    with StandInModel(api_key=KEY, fail_first=3, fail_with=fail_with, fail_delay=1.5) as server:
        run = start(curator, split, server, concurrency=1)
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.SUBMITTED
    run.refresh_from_db()
    assert server.requests == split.samples.count() + 3 and server.answered == split.samples.count()
    assert run.attempts == run.requests + 3


def test_a_cancelled_run_keeps_what_it_had(curator, user) -> None:
    split = plan_split()
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server, concurrency=1)
        execution.run_execute(run_id=run.pk, stop_after=4)
    services.run_cancel(user=curator, run=run)
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.CANCELLED and run.api_key_sealed == ""
    lines = [json.loads(line) for line in run.partial_file.splitlines()]
    assert len(lines) == 4 and all(set(line) == {"id", "prediction"} for line in lines)
    assert RunAnswer.objects.filter(run=run).count() == 4
    assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.CANCELLED  # nothing more is asked
    with pytest.raises(Exception, match="someone else"):
        services.run_cancel(user=user, run=run)


def test_the_api_key_is_in_no_log_page_or_export(curator, caplog, tmp_path) -> None:
    split = plan_split()
    caplog.set_level(logging.DEBUG)
    with StandInModel(api_key=KEY, fail_first=1) as server:
        run = start(curator, split, server)
        execution.run_execute(run_id=run.pk)
    assert all(auth == f"Bearer {KEY}" for auth in server.authorizations)  # it was sent, to the endpoint only
    finish_scoring(run)
    client = Client()
    client.force_login(curator)
    pages = [client.get(url).content.decode() for url in (
        f"/evaluations/{run.pk}/", f"/evaluations/{run.pk}/progress.json", "/evaluations/",
        f"/admin/evaluations/evaluationrun/{run.pk}/change/", f"/leaderboard/{split.benchmark.slug}/export.json",
        f"/leaderboard/{split.benchmark.slug}/export.csv")]
    files = [s.file.read().decode() for s in run.submissions.all()]
    assert KEY not in caplog.text + "".join(pages) + "".join(files)
    run.refresh_from_db()
    assert KEY not in json.dumps([run.api_key_sealed, run.options, run.error_message])


def test_the_command_line_file_scores_as_the_hubs_run(curator, tmp_path) -> None:
    split = plan_split()
    split.hidden_ground_truth = False
    split.save()
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server)
        execution.run_execute(run_id=run.pk)
        out = tmp_path / "cli.jsonl"
        with pytest.MonkeyPatch.context() as env:
            env.setenv("STANDIN_KEY", KEY)
            assert cli_main(["run", "--benchmark", split.benchmark.scorer, "--inputs", str(split_inputs_zip(split=split)),
                             "--base-url", server.base_url, "--model", "Qwen2.5-VL-7B", "--api-key-env", "STANDIN_KEY",
                             "--out", str(out)]) == 0
    [hub] = finish_scoring(run)
    assert out.read_text() == hub.file.read().decode()


def rebinding(monkeypatch, host: str, checked: str) -> None:
    """`host` answers the hub's check (evaluations.endpoints) with `checked`, and any other lookup of it (a connection
    resolving the name itself) with 127.0.0.2, where nothing listens."""
    real = socket.getaddrinfo

    def resolve(name, port, *args, **kwargs):
        if name != host:
            return real(name, port, *args, **kwargs)
        by_the_check = sys._getframe(1).f_globals.get("__name__") == "evaluations.endpoints"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (checked if by_the_check else "127.0.0.2", port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


def test_a_run_asks_the_address_its_endpoint_was_checked_at(curator, settings, monkeypatch) -> None:
    # Given an endpoint named by a host whose answer to the hub's check is the stand-in, and elsewhere to any other
    split = plan_split()
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["models.rebind.test"]
    settings.EVALUATIONS_REQUEST_TIMEOUT = 2
    rebinding(monkeypatch, "models.rebind.test", "127.0.0.1")
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server, base_url=server.base_url.replace("127.0.0.1", "models.rebind.test"))
        # When it plays
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.SUBMITTED, \
            EvaluationRun.objects.get(pk=run.pk).error_message
    # Then every request went to the address checked, naming the host it was given
    run.refresh_from_db()
    assert run.units_done == run.units_total > 0
    port = server.base_url.rsplit(":", 1)[1].split("/", 1)[0]
    assert server.answered == run.units_total and set(server.hosts) == {f"models.rebind.test:{port}"}


def test_a_chunk_whose_endpoint_now_resolves_inside_pauses_the_run(curator, settings, monkeypatch) -> None:
    # Given a run checked when it was made against a host that resolves to a private address by the time it plays
    split = plan_split()
    settings.EVALUATIONS_ENDPOINT_ALLOW = []
    with StandInModel(api_key=KEY) as server:
        answers = ["93.184.215.14"]  # a public address when the run is made, then a private one
        real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", lambda name, port, *args, **kwargs: real(
            name, port, *args, **kwargs) if name != "models.rebind.test" else [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers.pop(0) if answers else "10.255.255.1", port))])
        run = start(curator, split, server, base_url=server.base_url.replace("127.0.0.1", "models.rebind.test"))
        # When it plays
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.PAUSED
    # Then nothing was asked, and the run says why, keeping its chunks for a resume
    run.refresh_from_db()
    assert server.requests == 0 and run.units_done == 0
    assert "checked again and refused" in run.error_message and "10.255.255.1, an internal address" in run.error_message
