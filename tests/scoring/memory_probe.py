"""Score one submission through the pipeline in this fresh process and print, as JSON, what happened and the memory
it took: the resident set size before the run and its peak during the run (Linux /proc; the peak is reset just
before the run where the kernel allows it, else it is the process's peak so far, which only overstates).

Usage: python -m tests.scoring.memory_probe <submission id>   (DATABASE_URL and MEDIA_ROOT as the test's)
"""
from __future__ import annotations

import json
import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from scoring import pipeline  # the models need the app registry set up above
from scoring.benchmarks import plugins


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


def main(submission_id: int) -> None:
    for plugin in plugins():
        plugin.score_function()  # import every scorer first: the figure is the run's, not the imports'
    before = _status_kib("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")  # reset the peak (VmHWM) to the current resident set size
    except OSError:
        pass
    outcome = pipeline.submission_score(submission_id=submission_id, worker="memory-probe")
    peak = _status_kib("VmHWM")
    print(json.dumps({"outcome": outcome, "rss_before_mib": before / 1024, "peak_mib": peak / 1024,
                      "growth_mib": (peak - before) / 1024}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
