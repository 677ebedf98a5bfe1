"""`python -m scoring run`: play a benchmark's protocol against an OpenAI-compatible endpoint from your machine and
write the upload file, the same runner the hub's evaluation runs use (scoring.core.runner, the plugin's `runner`).

Benchmarks of single questions are asked from a split's inputs download (the zip, or the folder it was unpacked
into: questions.jsonl and the images); a benchmark whose protocol plays episodes (`uses_agent`) is played through
the hub's agent API (--hub and a token in the environment, EBH_TOKEN by default), its task list read from the
inputs download. The endpoint's API key is read
from the environment (--api-key-env, OPENAI_API_KEY by default), never from the command line, and never printed.
Pure: no Django.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from scoring import benchmarks
from scoring.core.agent_client import HttpAgentApi
from scoring.core.chat_client import OpenAIChatClient
from scoring.core.contract import SampleRecord
from scoring.core.runner import (
    Context,
    MemoryStore,
    RunError,
    Unit,
    repeat_files,
    request_params,
    run_units,
    units,
)


def read_records(text: str, source: str) -> list[SampleRecord]:
    records: list[SampleRecord] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            records.append(SampleRecord(key=str(data["key"]), position=len(records), category=data.get("category", ""),
                                        group=data.get("group", ""), task=data.get("task", ""),
                                        inputs=data.get("inputs") or {}))
        except (ValueError, KeyError, TypeError) as exc:
            raise RunError(f"{source} line {number}: not a question line ({exc})") from None
    return records


def open_inputs(path: Path, images_dir: Path | None) -> tuple[list[SampleRecord], Callable[[SampleRecord, str], bytes]]:
    """The records of an inputs download (a zip or a folder) and a reader of the images it names."""
    if path.is_dir():
        questions = path / "questions.jsonl"
        if not questions.is_file():
            raise RunError(f"{path}: no questions.jsonl in this folder (give the split's inputs download)")
        records = read_records(questions.read_text(encoding="utf-8"), str(questions))

        def from_folder(record: SampleRecord, name: str) -> bytes:
            return _inside(images_dir or path, name).read_bytes()
        return records, from_folder
    if not zipfile.is_zipfile(path):
        raise RunError(f"{path}: neither a folder nor a zip (give the split's inputs download)")
    archive = zipfile.ZipFile(path)
    try:
        text = archive.read("questions.jsonl").decode("utf-8")
    except KeyError:
        raise RunError(f"{path}: the zip holds no questions.jsonl") from None
    records = read_records(text, f"{path}:questions.jsonl")

    def from_zip(record: SampleRecord, name: str) -> bytes:
        if images_dir is not None:
            return _inside(images_dir, name).read_bytes()
        try:
            return archive.read(name)
        except KeyError:
            raise OSError(f"not in {path.name} (a hidden split's images are not in its inputs download: "
                          "give --images)") from None
    return records, from_zip


def _inside(folder: Path, name: str) -> Path:
    parts = [p for p in PurePosixPath(name).parts if p not in ("/", ".", "..")]
    return folder.joinpath(*parts)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise RunError(f"--option {pair!r}: write name=value")
        options[name.strip().replace("-", "_")] = value
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", required=True, help="the benchmark's slug: " + ", ".join(
        p.slug for p in benchmarks.plugins() if p.runner))
    parser.add_argument("--split", default="", help="the split's name (recorded in the run card)")
    parser.add_argument("--inputs", required=True, type=Path, help="the split's inputs download (zip or folder)")
    parser.add_argument("--images", type=Path, help="a folder holding the images questions.jsonl names")
    parser.add_argument("--base-url", required=True, help="the endpoint, e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, help="the model name the endpoint serves")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="the environment variable holding the key")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a protocol option")
    parser.add_argument("--k", type=int, default=1, help="repeats (one file each)")
    parser.add_argument("--seed", type=int, default=0, help="repeat r asks with seed + r - 1")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--max-tokens", type=int, default=0, help="0: the endpoint's default")
    parser.add_argument("--concurrency", type=int, default=4, help="requests open at once")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument("--hub", default="", help="episodes: the hub's address, e.g. https://hub.example.org")
    parser.add_argument("--token-env", default="EBH_TOKEN", help="episodes: the variable holding your API token")
    parser.add_argument("--out", required=True, type=Path, help="the upload file (k > 1: -r<n> before its suffix)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except RunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    plugin = benchmarks.plugin_for(args.benchmark) if args.benchmark in {p.slug for p in benchmarks.plugins()} else None
    protocol = plugin.runner_protocol() if plugin else None
    if plugin is None or protocol is None:
        raise RunError(f"no runnable benchmark {args.benchmark!r}")
    options = protocol.check_options(parse_options(args.option), model=args.model)
    records, images = open_inputs(args.inputs, args.images)
    agent = None
    if protocol.uses_agent:
        token = os.environ.get(args.token_env, "")
        if not args.hub or not token:
            raise RunError(f"{plugin.title} is played through the hub's agent API: give --hub and set {args.token_env}")
        agent = HttpAgentApi(base_url=args.hub, token=token, timeout=args.timeout)
    client = OpenAIChatClient(base_url=args.base_url, model=args.model, api_key=os.environ.get(args.api_key_env, ""),
                              timeout=args.timeout, max_in_flight=max(1, args.concurrency), who="the model")
    store = MemoryStore()
    extra = protocol.request_extra(options)

    def context(unit: Unit) -> Context:
        params = {**request_params(max_tokens=args.max_tokens, temperature=args.temperature, seed=args.seed,
                                   repeat=unit.repeat), **extra}
        return Context(model=client, store=store, options=options, params=params, images=images, agent=agent)

    todo = units(records, args.k)
    with client:
        lines, progress = run_units(protocol, todo, context, concurrency=args.concurrency)
    if agent is not None:
        agent.close()
    files = repeat_files(todo, lines, args.k)
    targets = [args.out] if args.k == 1 else [args.out.with_name(f"{args.out.stem}-r{r}{args.out.suffix}")
                                               for r in range(1, args.k + 1)]
    for target, text in zip(targets, files):
        target.write_text(text, encoding="utf-8")
    card = {"benchmark": plugin.slug, "split": args.split, "model": args.model, "options": options, "k": args.k,
            "seeds": [args.seed + r - 1 for r in range(1, args.k + 1)], "temperature": args.temperature,
            "max_tokens": args.max_tokens or None, "upload_options": protocol.upload_options(options),
            "files": [str(t) for t in targets], "requests": progress.asked}
    args.out.with_name(args.out.stem + ".card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print(f"{progress.done} of {len(todo)} units answered, {progress.asked} requests; wrote "
          + ", ".join(str(t) for t in targets))
    print("upload with options: " + json.dumps(card["upload_options"]))
    for error in progress.errors[:10]:
        print(f"unanswered: {error}", file=sys.stderr)
    return 0 if not progress.failed else 1
