"""Zips for the upload-limit tests: bombs streamed from zeros, corrupted bytes, and a memory probe."""
from __future__ import annotations

import io
import struct
import tracemalloc
import zipfile
from collections.abc import Callable
from typing import Any

MiB = 1 << 20


def zip_with(entries: list[tuple[str, bytes]], zeros: dict[str, int] | None = None,
             method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of (name, bytes) entries, then entries of `zeros[name]` zero bytes written 1 MiB at a time,
    so a bomb's big entry never exists in the test's memory (300 MB of zeros deflate to ~300 KB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in entries:
            archive.writestr(name, data)
        chunk = bytes(MiB)
        for name, size in (zeros or {}).items():
            with archive.open(name, "w") as sink:
                for _ in range(size // MiB):
                    sink.write(chunk)
    return buffer.getvalue()


def declare_size(data: bytes, entry: str, size: int) -> bytes:
    """The one-entry zip with the uncompressed size of `entry` rewritten in its local and central headers."""
    patched = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(entry)
    struct.pack_into("<L", patched, info.header_offset + 22, size)  # local file header
    central = data.rindex(b"PK\x01\x02")
    assert data[central + 46 : central + 46 + len(entry)] == entry.encode(), "declare_size needs a one-entry zip"
    struct.pack_into("<L", patched, central + 24, size)  # central directory header
    return bytes(patched)


def flip_data_byte(data: bytes, entry: str, at: int = 0) -> bytes:
    """The zip with one flipped byte, `at` bytes into the entry's compressed data (after its local header)."""
    patched = bytearray(data)
    offset = zipfile.ZipFile(io.BytesIO(data)).getinfo(entry).header_offset
    name_length, extra_length = struct.unpack_from("<HH", data, offset + 26)
    patched[offset + 30 + name_length + extra_length + at] ^= 0xFF
    return bytes(patched)


def peak_bytes(call: Callable[[], Any]) -> tuple[Any, int]:
    """Run call(); return its result (or the exception it raised) and the peak of Python allocations during it."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        try:
            outcome = call()
        except Exception as exc:  # noqa: BLE001 - the caller asserts on it
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
