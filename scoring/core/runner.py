"""Running a model on a benchmark: the generic driver every benchmark's protocol plugs into. Pure (no Django).

A benchmark's plugin names its protocol (`BenchmarkPlugin.runner`, "module:NAME", a `Protocol` object below): which
options it takes, how one sample (or episode) becomes chat requests and how the answers become one line of the
benchmark's upload file. The driver here is what the command line (`python -m scoring run`) and the hub's worker
(evaluations.tasks) share: `play_unit` plays one unit of work against a `ChatModel`, asking through an `AnswerStore`
so an answer already stored is never asked again (a resumed run replays the stored answers), and `run_units`
plays units with at most `concurrency` at once: the command line a whole split k times, the hub's worker one chunk
of a run's units at a time (each chunk a Celery task of its own).

Units: repeat r (1..k) of sample `key` is the unit "r<r>/<key>"; a request of it is "<unit>#<turn>" (turn 0 for a
single-turn benchmark). Repeat r asks with seed `seed + r - 1`.
"""
from __future__ import annotations

import base64
import json
import mimetypes
import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from scoring.core.chat_client import ChatReply, Messages
from scoring.core.contract import SampleRecord

IMAGE_PLACEHOLDER = "<image>"


class RunError(ValueError):
    """A run that cannot be made as asked (an option, a missing image); the message says what and where."""


@dataclass(frozen=True)
class Answer:
    """One answered request as stored: what the model said and what it cost."""

    content: str
    usage: Mapping[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    attempts: int = 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Answer":
        return cls(content=str(data["content"]), usage=dict(data.get("usage") or {}),
                   seconds=float(data.get("seconds") or 0.0), attempts=int(data.get("attempts") or 1))


class ChatModel(Protocol):
    def complete(self, messages: Messages, **params: Any) -> ChatReply: ...


class AnswerStore(Protocol):
    """Where answered requests are kept, by request key; `put` keeps the first answer given a key."""

    def get(self, key: str) -> Answer | None: ...

    def put(self, key: str, answer: Answer) -> None: ...


class MemoryStore:
    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Answer | None:
        return self.answers.get(key)

    def put(self, key: str, answer: Answer) -> None:
        with self._lock:
            self.answers.setdefault(key, answer)


class AgentApi(Protocol):
    """The hub's VGE agent API (simulator/api.py) as a runner plays it: over HTTP from the command line and from
    the hub's worker alike (scoring.core.agent_client)."""

    def start(self, task: str, options: Mapping[str, Any]) -> dict[str, Any]: ...

    def act(self, episode: int, output: str) -> dict[str, Any]: ...

    def image(self, url: str) -> bytes: ...


class ModelFailed(RuntimeError):
    """The endpoint gave no answer after its retries: the unit stays unfinished (asked again when resumed)."""


@dataclass
class Context:
    """What a protocol's `play` is given for one unit."""

    model: ChatModel
    store: AnswerStore
    options: Mapping[str, Any]  # the protocol's options, checked
    params: Mapping[str, Any]  # added to every request (max_tokens, temperature, seed)
    images: Callable[[SampleRecord, str], bytes] | None = None  # (a sample, an image name of its inputs) -> bytes
    agent: AgentApi | None = None
    asked: int = 0  # requests this context sent to the model (not answered from the store)
    stop: Callable[[], bool] = lambda: False  # asked between turns: True ends the unit unfinished

    def ask(self, key: str, messages: Messages) -> Answer:
        found = self.store.get(key)
        if found is not None:
            return found
        reply = self.model.complete(messages, **self.params)
        self.asked += 1
        if reply.content is None:
            raise ModelFailed(reply.error)
        answer = Answer(reply.content, dict(reply.usage), round(reply.seconds, 4), reply.attempts)
        self.store.put(key, answer)
        return self.store.get(key) or answer


@dataclass(frozen=True)
class RunOption:
    """An option of a benchmark's protocol: its name (the CLI's --<name with dashes>), help, default."""

    name: str
    help: str
    default: Any = None
    choices: tuple[str, ...] = ()


class BenchmarkProtocol(Protocol):
    """A benchmark's protocol (`BenchmarkPlugin.runner`)."""

    options: tuple[RunOption, ...]
    uses_agent: bool  # True: episodes played through the agent API (`Context.agent`), not from the inputs
    file_suffix: str  # the upload file's suffix, ".jsonl"

    def check_options(self, options: Mapping[str, Any], *, model: str) -> dict[str, Any]:
        """The options with defaults filled in; RunError naming the option when one is wrong."""
        ...

    def request_extra(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """What the options add to every request's body (EPIC: the thinking switch)."""
        ...

    def play(self, unit: "Unit", ctx: Context) -> dict[str, Any]:
        """One line of the upload file for the unit (asking through `ctx.ask`)."""
        ...

    def upload_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The upload options the file is scored with (EPIC: raw responses and the coordinate mode)."""
        ...


@dataclass(frozen=True)
class Unit:
    repeat: int  # 1..k
    record: SampleRecord

    @property
    def key(self) -> str:
        return unit_key(self.repeat, self.record.key)

    def request_key(self, turn: int = 0) -> str:
        return f"{self.key}#{turn}"


def unit_key(repeat: int, sample_key: str) -> str:
    return f"r{repeat}/{sample_key}"


def units(records: Sequence[SampleRecord], k: int) -> list[Unit]:
    if k < 1:
        raise RunError("k must be at least 1")
    return [Unit(repeat, record) for repeat in range(1, k + 1) for record in records]


def request_params(*, max_tokens: int | None, temperature: float, seed: int | None, repeat: int) -> dict[str, Any]:
    params: dict[str, Any] = {"temperature": temperature}
    if max_tokens:
        params["max_tokens"] = int(max_tokens)
    if seed is not None:
        params["seed"] = int(seed) + repeat - 1
    return params


# -- message building shared by the protocols --

def data_url(name: str, data: bytes) -> str:
    kind = mimetypes.guess_type(name)[0] or _sniff_type(data)
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def _sniff_type(data: bytes) -> str:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    return "application/octet-stream"


def image_part(name: str, data: bytes) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": data_url(name, data)}}


def interleave(text: str, images: Sequence[dict[str, Any]], *, placeholder: str = IMAGE_PLACEHOLDER) -> list[dict[str, Any]]:
    """OpenAI content parts for a user text holding one placeholder per image: the text cut at each placeholder with
    that image between (as a chat template puts images where the placeholders stand); images left over go first."""
    pieces = text.split(placeholder)
    if len(pieces) - 1 != len(images):
        return [*images, {"type": "text", "text": text}]
    parts: list[dict[str, Any]] = []
    for index, piece in enumerate(pieces):
        if piece.strip():
            parts.append({"type": "text", "text": piece.strip("\n")})
        if index < len(images):
            parts.append(images[index])
    return parts


def sample_images(ctx: Context, record: SampleRecord, names: Iterable[str]) -> list[dict[str, Any]]:
    where = f"sample {record.key}"
    names = list(names)
    if names and ctx.images is None:
        raise RunError(f"{where}: this run has no images to show the model")
    out = []
    for name in names:
        try:
            out.append(image_part(name, ctx.images(record, name)))  # type: ignore[misc]
        except (OSError, KeyError) as exc:
            raise RunError(f"{where}: image {name!r} could not be read ({exc})") from None
    return out


# -- the driver --

@dataclass
class Progress:
    done: int = 0
    failed: int = 0
    asked: int = 0
    stopped: int = 0  # units not played because `stop` said so
    errors: list[str] = field(default_factory=list)


UnitDone = Callable[[Unit, Context, "dict[str, Any] | None"], None]


def run_units(protocol: BenchmarkProtocol, todo: Sequence[Unit], make_context: Callable[[Unit], Context], *,
              concurrency: int = 4, on_done: UnitDone | None = None, stop: Callable[[], bool] = lambda: False,
              unit_errors: tuple[type[BaseException], ...] = (ModelFailed,),
              on_thread_end: Callable[[], None] | None = None) -> tuple[dict[str, dict[str, Any]], Progress]:
    """Play the units, at most `concurrency` at once (one thread each); (line per unit key, progress). The command
    line plays a whole split through it, the hub's worker one chunk of a run (evaluations.execution).

    A unit whose play raised one of `unit_errors` (the model gave no answer after its retries) is left out, its
    error in `progress.errors`; asking again later resumes it from the stored answers. `on_done(unit, ctx, line)` is
    called in the unit's thread after each unit, `line` None when it failed (the hub stores the unit's answers and
    line there); no unit starts once `stop()` is true; `on_thread_end` runs in each thread as it ends (the hub
    closes the thread's database connections)."""
    lines: dict[str, dict[str, Any]] = {}
    progress = Progress()
    lock = threading.Lock()
    queue = list(reversed(todo))
    raised: list[BaseException] = []  # another error ends the thread's work; the first is raised once all end

    def one(unit: Unit) -> None:
        ctx = make_context(unit)
        try:
            line: dict[str, Any] | None = protocol.play(unit, ctx)
        except unit_errors as exc:
            line = None
            with lock:
                progress.failed += 1
                progress.errors.append(f"{unit.key}: {exc}")
        with lock:
            progress.asked += ctx.asked
            if line is not None:
                lines[unit.key] = line
                progress.done += 1
        if on_done is not None:
            on_done(unit, ctx, line)

    def worker() -> None:
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    if stop():
                        progress.stopped += len(queue)
                        queue.clear()
                        return
                    unit = queue.pop()
                one(unit)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            with lock:
                raised.append(exc)
                queue.clear()
        finally:
            if on_thread_end is not None:
                on_thread_end()

    threads = [threading.Thread(target=worker, name=f"runner-{n}")
               for n in range(max(1, min(concurrency, len(todo))) if todo else 0)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if raised:
        raise raised[0]
    return lines, progress


def file_text(lines: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def repeat_files(todo: Sequence[Unit], lines: Mapping[str, Mapping[str, Any]], k: int) -> list[str]:
    """The upload file of each repeat 1..k, its lines in the units' order (units without a line left out)."""
    return [file_text(lines[u.key] for u in todo if u.repeat == repeat and u.key in lines) for repeat in range(1, k + 1)]
