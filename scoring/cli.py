"""Command-line scoring, one sub-command per registered benchmark (its plugin's `cli`). Pure: no Django, no
database. Benchmarks outside this package join through the EXTRA_BENCHMARKS environment variable."""
from __future__ import annotations

import importlib
import os
import sys

from scoring import benchmarks

# Commands about any benchmark's scores, beside the benchmarks' own (a benchmark's slug never takes these names),
# by the name of their function in scoring.provenance_cli. That module and scoring.run_cli (an HTTP client, schema
# validation) are imported only by the commands that use them: a benchmark's scoring starts without them.
GENERAL = {"verify": ("verify_main", "make a score again from its file and split: says 'same' or what differs"),
           "provenance": ("provenance_main", "score a file against a split folder and print its provenance keys")}


def _commands() -> dict[str, benchmarks.BenchmarkPlugin]:
    benchmarks.register_targets(os.environ.get("EXTRA_BENCHMARKS", ""))
    return {plugin.slug: plugin for plugin in benchmarks.plugins() if plugin.cli}


def usage() -> str:
    lines = ["usage: python -m scoring <benchmark> [options]", "       python -m scoring verify PROVENANCE.json FILE "
             "--split-dir DIR", "", "benchmarks:"]
    lines += [f"  {slug:<12} {plugin.cli_help}" for slug, plugin in _commands().items()]
    lines.append(f"  {'run':<12} run a model on a benchmark's protocol and write the upload file")
    lines += ["", "provenance:"] + [f"  {name:<12} {text}" for name, (_, text) in GENERAL.items()]
    lines.append("\n`python -m scoring <benchmark> --help` shows each one's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name == "run":
        return importlib.import_module("scoring.run_cli").main(rest)
    if name in GENERAL:
        return getattr(importlib.import_module("scoring.provenance_cli"), GENERAL[name][0])(rest)
    # The one benchmark named is imported, not every one: a benchmark's scoring starts without the others' code.
    benchmarks.register_targets(os.environ.get("EXTRA_BENCHMARKS", ""))
    try:
        cli = benchmarks.plugin_for(name).cli
    except benchmarks.UnknownBenchmark:
        cli = None
    if not cli:
        print(f"unknown benchmark '{name}'\n\n{usage()}", file=sys.stderr)
        return 2
    return int(importlib.import_module(cli).main(rest) or 0)


def single_threaded_blas() -> None:
    """OpenBLAS (numpy's) told to start no thread pool, unless the caller chose a size: for `python -m scoring`, set
    before any benchmark's code imports numpy (this module imports none). Scoring a file is elementwise array work,
    and the few matrix products (bootstrap intervals, 1,000 resamples by a split's units) are small; the pool's threads, started at numpy's import, spin for their
    work: ~40 ms of CPU a process, ~5% of the EPIC CLI's on a 6,661-sample file (``python -c 'import numpy'``: 0.09 s
    CPU, 0.05 s with one thread)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

