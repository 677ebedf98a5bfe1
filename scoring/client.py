"""Command-line client: upload a prediction file with an API token and wait for its score.

    python -m scoring.client submit --url http://127.0.0.1:8000 --token TOKEN --benchmark SLUG \
        [--split test] --model "My-VLM-7B" [--raw] [--OPTION VALUE | --PRESET NAME] predictions.jsonl

Each benchmark's upload options (its plugin's `upload_options`) are flags: --<option> names the value; an option
with presets takes it from a named preset too (EPIC's --family: the model family's usual coordinates, for a model
whose --model name does not show its family; the site applies the family of a name that does when no mode is
sent); the option's own flag wins over its preset.

Uses httpx and the public API (POST /api/submissions/, GET /api/submissions/{id}/); no Django (the options come
from the pure benchmark registry).
Exit status: 0 scored (or awaiting judgement: scored, with answers left for a judge or for people; the score is
provisional), 1 failed or refused, 2 bad arguments, 3 timed out.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

import httpx

from scoring import benchmarks
from scoring.core.plugin import UploadOption

# What the API's `status` says once the site is done with the file: awaiting_judgement is scored, with answers left
# for a judge or for people (its score is provisional until they decide them).
FINAL = ("scored", "awaiting_judgement", "failed")


class ClientError(Exception):
    pass


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase
    if isinstance(body, dict):
        parts = [str(body.get("detail", ""))]
        if body.get("errors"):
            parts.append(json.dumps(body["errors"]))
        text = " ".join(p for p in parts if p) or json.dumps(body)
        problems = [p for p in body.get("problems") or [] if isinstance(p, dict)]
        return "\n".join([text, *(f"  {_problem_text(p)}" for p in problems)])
    return json.dumps(body)


def _problem_text(problem: dict[str, Any]) -> str:
    """One kind of problem of a refused file, as the site groups them: "50 lines (1, 2, ...): message"."""
    count, lines = problem.get("count") or 1, problem.get("lines") or []
    message = str(problem.get("message", ""))
    if count == 1:
        return f"line {problem.get('line')}: {message}" if problem.get("line") is not None else message
    shown = ", ".join(map(str, lines)) + (", ..." if count > len(lines) else "")
    return f"{count} lines ({shown}): {message}" if lines else f"{count} problems: {message}"


def submit(
    client: httpx.Client, *, benchmark: str, model: str, file: Path, split: str | None = None,
    thinking: str = "", raw: bool = False, note: str = "", options: dict[str, str] | None = None,
    private: bool = False,
) -> dict[str, Any]:
    """Upload a file; `options` are the upload options by name (an option at its default is not sent)."""
    data = {"benchmark": benchmark, "model": model}
    if private:
        data["visibility"] = "private"
    declared = benchmarks.upload_options()
    sent = {name: value for name, value in (options or {}).items()
            if value and not (name in declared and value == declared[name].default)}
    if sent:
        data["options"] = json.dumps(sent)
    if split:
        data["split"] = split
    if thinking:
        data["thinking"] = thinking
    if raw:
        data["raw"] = "true"
    if note:
        data["note"] = note
    with file.open("rb") as handle:
        response = client.post("/api/submissions/", data=data, files={"file": (file.name, handle)})
    if response.status_code != 201:
        raise ClientError(f"upload refused ({response.status_code}): {_detail(response)}")
    return response.json()


def wait(
    client: httpx.Client, submission_id: int, *, timeout: float = 1800.0, interval: float = 2.0,
    on_progress: Callable[[dict[str, Any]], None] | None = None, sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Poll the submission until it is scored or failed; raises TimeoutError past `timeout` seconds."""
    deadline = clock() + timeout
    while True:
        response = client.get(f"/api/submissions/{submission_id}/")
        if response.status_code != 200:
            raise ClientError(f"could not read submission {submission_id} ({response.status_code}): {_detail(response)}")
        body = response.json()
        if on_progress:
            on_progress(body)
        if body.get("status") in FINAL:
            return body
        if clock() >= deadline:
            raise TimeoutError(f"submission {submission_id} is still {body.get('status')} after {timeout:.0f} s")
        sleep(interval)


def _chosen(args: argparse.Namespace, options: dict[str, UploadOption]) -> dict[str, str]:
    """The options the flags give: an option's own flag, else its preset's value."""
    chosen = {}
    for name, option in options.items():
        value = getattr(args, f"option_{name}") or dict(option.presets).get(getattr(args, f"preset_{name}", None) or "")
        if value:
            chosen[name] = value
    return chosen


def _print_progress(out: TextIO) -> Callable[[dict[str, Any]], None]:
    last: list[Any] = [None]

    def show(body: dict[str, Any]) -> None:
        state = (body.get("status"), body.get("progress_done"), body.get("progress_total"))
        if state != last[0]:
            last[0] = state
            done, total = state[1], state[2]
            progress = f" {done}/{total}" if total else ""
            print(f"#{body.get('id')} {state[0]}{progress}", file=out, flush=True)

    return show


def main(argv: list[str] | None = None, *, transport: httpx.BaseTransport | None = None,
         out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.client", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("submit", help="upload a file and wait for its score")
    s.add_argument("--url", required=True, help="site root, e.g. http://127.0.0.1:8000")
    s.add_argument("--token", required=True, help="API token (from /accounts/token/)")
    s.add_argument("--benchmark", required=True)
    s.add_argument("--split", default=None)
    s.add_argument("--model", required=True)
    s.add_argument("--thinking", choices=["yes", "no", ""], default="")
    s.add_argument("--raw", action="store_true", help="the file holds raw model responses")
    options = benchmarks.upload_options()
    for option in options.values():
        s.add_argument(f"--{option.name.replace('_', '-')}", dest=f"option_{option.name}",
                       choices=[value for value, _ in option.choices], default=None,
                       help=f"{option.help} (default: {option.default})")
        if option.preset_flag:
            s.add_argument(f"--{option.preset_flag}", dest=f"preset_{option.name}",
                           choices=sorted(name for name, _ in option.presets), default=None, help=option.preset_help)
    s.add_argument("--private", action="store_true", help="score it for you only: on no board until made public")
    s.add_argument("--note", default="")
    s.add_argument("--timeout", type=float, default=1800.0)
    s.add_argument("--interval", type=float, default=2.0)
    s.add_argument("--no-wait", action="store_true", help="upload and exit")
    s.add_argument("file", type=Path)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    if not args.file.is_file():
        print(f"error: {args.file}: no such file", file=out)
        return 2
    headers = {"Authorization": f"Token {args.token}"}
    with httpx.Client(base_url=args.url.rstrip("/"), headers=headers, timeout=60.0, transport=transport) as client:
        try:
            created = submit(client, benchmark=args.benchmark, model=args.model, file=args.file, split=args.split,
                             thinking=args.thinking, raw=args.raw, note=args.note,
                             options=_chosen(args, options), private=args.private)
            print(f"uploaded as submission #{created['id']}", file=out)
            if args.no_wait:
                return 0
            final = wait(client, created["id"], timeout=args.timeout, interval=args.interval,
                         on_progress=_print_progress(out))
        except ClientError as exc:
            print(f"error: {exc}", file=out)
            return 1
        except TimeoutError as exc:
            print(f"error: {exc}", file=out)
            return 3
        except httpx.HTTPError as exc:
            print(f"error: could not reach {args.url}: {exc}", file=out)
            return 1
    if final["status"] == "scored":
        print(json.dumps({"status": "scored", "score": final.get("score")}, indent=1), file=out)
        return 0
    if final["status"] == "awaiting_judgement":
        print(json.dumps({"status": "awaiting_judgement", "provisional": final.get("provisional"),
                          "score": final.get("score")}, indent=1), file=out)
        return 0
    print(f"failed: {final.get('error_message') or 'no message'}", file=out)
    for problem in (final.get("error_report") or [])[:20]:
        print(f"  line {problem.get('line')}, field {problem.get('field')}: {problem.get('message')}", file=out)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
