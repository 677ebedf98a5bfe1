"""The demo's hub-run rows: one run per benchmark the hub can run, on its first split, asked of the stand-in model
(scoring/standin.py) over a real socket; VGE episodes through this hub's agent API, served for the while by a
local HTTP server in this process. Idempotent: a split that has a submitted demo run keeps it."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application
from django.test import override_settings

from evaluations import execution, services
from evaluations.models import EvaluationRun
from scoring.benchmarks import plugin_for
from scoring.models import Split
from scoring.pipeline import submission_score
from scoring.standin import StandInModel

DEMO_USER = "hub-runner"
DEMO_MODEL = "Stand-in model (hub demo)"


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def local_hub() -> Iterator[str]:
    """This site served over HTTP on a free loopback port (for the agent API), while the block runs."""
    server = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler, allow_reuse_address=True)
    server.daemon_threads = True
    server.set_app(get_wsgi_application())
    thread = threading.Thread(target=server.serve_forever, name="demo-hub", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def demo_splits() -> list[Split]:
    found = {}
    for split in Split.objects.select_related("benchmark").order_by("benchmark__order", "name", "-version"):
        if plugin_for(split.benchmark.scorer).runner and split.benchmark_id not in found and split.samples.exists():
            found[split.benchmark_id] = split
    return list(found.values())


def demo_hub_runs(*, write=print) -> list[EvaluationRun]:
    # Active (the agent API takes tokens of active users only), staff (a curator: any endpoint), no password.
    user, created = get_user_model().objects.get_or_create(username=DEMO_USER, defaults={"is_staff": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    runs = []
    with StandInModel() as model, local_hub() as hub, override_settings(
            EVALUATIONS_ENDPOINT_ALLOW=[*settings.EVALUATIONS_ENDPOINT_ALLOW, "127.0.0.1"],
            EVALUATIONS_AGENT_API_URL=hub):
        for split in demo_splits():
            run = EvaluationRun.objects.filter(owner=user, split=split,
                                               status=EvaluationRun.Status.SUBMITTED).first()
            if run is None:
                run = services.run_create(user=user, split=split, model_name=DEMO_MODEL, base_url=model.base_url,
                                          concurrency=8)
                execution.run_execute(run_id=run.pk)
                run.refresh_from_db()
            for submission in run.submissions.all():
                submission_score(submission_id=submission.pk, worker="make_demo")
            write(f"{split}: run #{run.pk} {run.get_status_display().lower()}, {run.units_done}/{run.units_total} "
                  f"units, {run.requests} requests")
            runs.append(run)
    return runs
