"""The site's own processes, started by a test on the test database: a web server (uvicorn, HTTP + websockets), a
Celery worker, a beat scheduler. Each can be killed without warning and tells its peak resident memory (Linux
/proc VmHWM), which is what the fault suite bounds."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

from tests.conftest import subprocess_database_url

ROOT = Path(__file__).resolve().parents[2]
# The bound every fault case puts on a process of the site: its peak resident set size.
PEAK_RSS_LIMIT_MIB = 1024
# What decides a process's broker and its queues (the filesystem broker's folder is under EBH_VAR_DIR).
BROKER_ENV = ("CELERY_BROKER_URL", "EBH_VAR_DIR", "SAM_EMBEDDING_QUEUE")


def free_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def site_env(**extra: str) -> dict[str, str]:
    """The environment of a site process: the test database and media folder, the dummy benchmark registered, and
    whatever broker and channel layer this test run was given (CELERY_BROKER_URL, REDIS_URL)."""
    env = dict(os.environ, DATABASE_URL=subprocess_database_url())
    env.update(
        EXTRA_BENCHMARKS="tests.dummy_scorer:PLUGIN",
        MEDIA_ROOT=str(settings.MEDIA_ROOT),
        PYTHONPATH=str(ROOT),
        SCORING_LEASE_SECONDS="300",
    )
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.update(extra)
    return env


class Process:
    """One process of the site, its output appended to `log_path`."""

    def __init__(self, args: list[str], env: dict[str, str], log_path: Path):
        self.args = args
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def start(self) -> Process:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def _status_kib(self, field: str) -> int:
        with open(f"/proc/{self.pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise LookupError(field)

    def rss_mib(self) -> float:
        return self._status_kib("VmRSS") / 1024

    def peak_rss_mib(self) -> float:
        """The most memory the process has held at once since it started."""
        return self._status_kib("VmHWM") / 1024

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def end(self) -> None:
        """Ends the process once the test has what it needs from it: at once (SIGKILL). A worker's warm stop would
        first finish the job in hand (a redelivered duplicate, say: seconds of a test's sleeps); its message goes back
        to the broker, and the next test's purge drops it."""
        if self.alive():
            self.kill()

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)

    def wait_listening(self, *, timeout: float, what: str) -> None:
        """Wait until something accepts connections on `self.port`; fail with the log if the process exited."""
        def listening() -> bool:
            if not self.alive():
                raise RuntimeError(f"{what} exited:\n{self.log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                return False
            return True

        wait_for(listening, timeout=timeout, what=f"{what} to listen")

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


class Server(Process):
    """The ASGI application under uvicorn on a free loopback port."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.port = free_port()
        super().__init__([sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(self.port),
                          "--no-access-log", "config.asgi:application"], env, log_path)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        super().start()
        self.wait_listening(timeout=60, what="the server")
        return self


class Worker(Process):
    """A `celery worker` (solo pool: the job runs in this very process, so its memory is the job's)."""

    def __init__(self, nodename: str, env: dict[str, str], log_path: Path):
        self.nodename = nodename
        super().__init__([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-l", "info",
                          "-n", nodename], env, log_path)

    def purge(self) -> None:
        """Drop the messages waiting in the broker (other tests' jobs, or - on purpose - this test's). When the
        worker's broker and queues are this test process's, done here with the calls `celery purge -f` makes (a
        process of its own cost a Django start); otherwise (a fault case's RabbitMQ) by `celery purge` in the
        worker's environment."""
        if all(self.env.get(name) == os.environ.get(name) for name in BROKER_ENV):
            from config.celery import app

            with app.connection_for_write() as connection:
                for queue in app.amqp.queues.keys():  # what `celery purge -f` does
                    try:
                        connection.default_channel.queue_purge(queue)
                    except connection.channel_errors:
                        pass
            return
        subprocess.run([sys.executable, "-m", "celery", "-A", "config", "purge", "-f"],
                       cwd=ROOT, env=self.env, capture_output=True, timeout=60, check=True)

    def wait_ready(self, timeout: float = 90) -> Worker:
        def ready() -> bool:
            if not self.alive():
                raise RuntimeError(f"the worker exited:\n{self.log_tail()}")
            return " ready." in self.log_tail(200_000)

        wait_for(ready, timeout=timeout, what=f"worker {self.nodename} to be ready")
        return self


class Beat(Process):
    """A `celery beat` scheduler of its own, with its own schedule file."""

    def __init__(self, env: dict[str, str], log_path: Path, schedule: Path):
        super().__init__([sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "info",
                          "--schedule", str(schedule)], env, log_path)


def descendants(pid: int) -> list[int]:
    """The processes started under `pid`, children first (read from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(0), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


class EmbeddedSite(Process):
    """`scripts/serve.sh HOST PORT`, what `make run` starts (the web server, the workers, beat), in a process group
    of its own and with its own var folder; `web_pid()` is its web server process."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.port = free_port()
        super().__init__(["bash", "scripts/serve.sh", "127.0.0.1", str(self.port)], env, log_path)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> EmbeddedSite:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.wait_listening(timeout=90, what="serve.sh (the embedded site)")
        return self

    def web_pid(self) -> int:
        servers = [pid for pid in descendants(self.pid) if "config.asgi:application" in cmdline(pid)]
        assert len(servers) == 1, [(pid, cmdline(pid)) for pid in descendants(self.pid)]
        return servers[0]

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.process.wait(timeout=20)
