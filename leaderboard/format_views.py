"""A benchmark's format page: what a prediction file looks like, its options and coordinate systems, an example
file per split and the inputs of each split to download. The content comes from the benchmark's plugin
(`scoring.core.plugin.FormatGuide`), so every registered benchmark has one."""
from __future__ import annotations

from django.db.models import Count
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from leaderboard.board_views import protocol_statement
from leaderboard.format_files import EXAMPLE_SAMPLES, example_file, split_inputs_zip
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.models import Benchmark, Split
from scoring.phases import phase_shown
from scoring.selectors import splits_open_for_submission


def _benchmark_and_plugin(slug: str):
    benchmark = get_object_or_404(Benchmark, slug=slug)
    try:
        return benchmark, plugin_for(benchmark.scorer)
    except UnknownBenchmark:
        raise Http404("This benchmark has no scorer yet, so no file format.") from None


def client_command(*, site: str, benchmark: str, split: str = "", options=()) -> str:
    """The command line that uploads a file to the benchmark with `python -m scoring.client` (scoring/client.py),
    to `split` when given, with the upload options given as its flags."""
    flags = [f"--split {split}"] if split else []
    for name, value in options:
        flag = f"--{name.replace('_', '-')}"
        flags.append(flag if value is True else f"{flag} {value}")
    return " ".join(["python -m scoring.client submit", f"--url {site}", "--token YOUR_TOKEN",
                     f"--benchmark {benchmark}", '--model "My-VLM-7B"', *flags, "predictions.jsonl"])


def _split(benchmark: Benchmark, name: str, version: int) -> Split:
    return get_object_or_404(Split, benchmark=benchmark, name=name, version=version)


@require_GET
def format_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark, plugin = _benchmark_and_plugin(slug)
    guide = plugin.format
    splits = benchmark.splits.select_related("phase").annotate(sample_count=Count("samples")).order_by(
        "phase__order", "name", "-version")
    rows = [{"split": s, "samples": s.sample_count, "phase": phase_shown(s.phase) if s.phase_id else None}
            for s in splits]
    options = ", ".join(f"{k}={'true' if v is True else v}" for k, v in guide.example_options)
    # The example names a split that takes uploads now (open phase, with samples): the default split may be a
    # paper's table with no samples, which the client would be refused.
    takes = sorted(splits_open_for_submission().filter(benchmark=benchmark), key=lambda s: not s.is_default)
    prompts = guide.prompts_function()
    return render(request, "leaderboard/format.html", {
        "cli_example": client_command(site=request.build_absolute_uri("/").rstrip("/"), benchmark=benchmark.slug,
                                      split=takes[0].name if takes else "", options=guide.example_options),
        "benchmark": benchmark, "guide": guide, "split_rows": rows, "has_example": bool(guide.example_record),
        "example_options": options, "example_samples": EXAMPLE_SAMPLES, "prompts": prompts() if prompts else (),
        "protocol": protocol_statement(benchmark.slug), "protocol_docs": plugin.protocol.docs})


@require_GET
def format_example(request: HttpRequest, slug: str, split: str, version: int) -> HttpResponse:
    benchmark, _ = _benchmark_and_plugin(slug)
    found = example_file(split=_split(benchmark, split, version))
    if found is None:
        raise Http404("This benchmark offers no example file.")
    text, _ = found
    response = HttpResponse(text, content_type="application/jsonl; charset=utf-8")
    name = f"{slug}-{split}-v{version}-example.jsonl"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def format_inputs(request: HttpRequest, slug: str, split: str, version: int) -> FileResponse:
    benchmark, _ = _benchmark_and_plugin(slug)
    the_split = _split(benchmark, split, version)
    kind = "inputs" if not the_split.hidden_ground_truth else "questions"
    return FileResponse(split_inputs_zip(split=the_split).open("rb"), as_attachment=True,
                        filename=f"{slug}-{split}-v{version}-{kind}.zip", content_type="application/zip")
