"""A local HTTP server on 127.0.0.1 in a thread of its own, for the stand-in endpoints over a real socket (a
benchmark's stand-in judge, and the stand-in model, `scoring.standin`): a context manager that starts and stops it,
and the loop of their command lines. Standard library only."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    """Subclasses build their handler, then call `_listen(handler, port)` in `__init__` (port 0: any free one)."""

    thread_name = "local-server"
    queue_size = 128

    def _listen(self, handler: type[BaseHTTPRequestHandler], port: int) -> None:
        server_class = type("Server", (ThreadingHTTPServer,),
                            {"daemon_threads": True, "request_queue_size": self.queue_size})
        self._server = server_class(("127.0.0.1", port), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name=self.thread_name, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_until_interrupted(server: LocalServer, label: str) -> int:
    """Serve until Ctrl-C, saying where: the stand-ins' `python -m …` entry points."""
    with server:
        print(f"{label} at {server.base_url} (Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0
