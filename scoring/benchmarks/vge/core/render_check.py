"""Can a player tell the states of a device apart from its pictures? Render every (state, view) and compare.

`check_device(device)` renders each state in every view of the device (the dashboard included: every task can
unlock it) and calls a pair of distinct states distinguishable when, in at least one view, at least
`MIN_PIXELS` pixels differ by more than `MIN_DIFFERENCE` in some colour channel. `render_states(...)` does this
for a set of devices, writes `OUT/<device>/<state>/<view>.png` and `OUT/index.json`, and returns the report that
`python -m simulator render-states --library demo --out DIR` prints. No Django.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoring.benchmarks.vge.core.device import Device, load_device
from scoring.benchmarks.vge.core.library import build_library, parse_spec
from scoring.benchmarks.vge.core.render import png_bytes, render_image, visual_key

MIN_DIFFERENCE = 24  # of 255, in any channel
MIN_PIXELS = 40  # of 512 x 512: about a 6 x 6 patch


@dataclass
class DeviceReport:
    device: str
    pairs: int
    alike: list[tuple[str, str, str]] = field(default_factory=list)  # (state, state, why or '') that look the same

    @property
    def distinguishable(self) -> int:
        return self.pairs - len(self.alike)

    @property
    def share(self) -> float:
        return self.distinguishable / self.pairs if self.pairs else 1.0


def differs(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two renders differ visibly (not just by a stray anti-aliased pixel)."""
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2)
    return int((diff > MIN_DIFFERENCE).sum()) >= MIN_PIXELS


def check_device(device: Device, *, invisible: Iterable[tuple[str, str, str]] = (), out_dir: Path | None = None,
                 index: list[dict] | None = None) -> DeviceReport:
    """Which pairs of the device's states look alike in every view; optionally write every render."""
    reasons = {frozenset((a, b)): why for a, b, why in invisible}
    states = sorted(device.states)
    views = list(device.views)
    keys = {state: visual_key(device, state) for state in states}
    renders: dict[tuple[str, str], np.ndarray] = {}
    pngs: dict[tuple[str, str], bytes] = {}
    for state in states:
        for view in views:
            if (keys[state], view) not in renders:
                image = render_image(device, view, state)
                renders[(keys[state], view)] = np.asarray(image)
                if out_dir is not None:
                    pngs[(keys[state], view)] = png_bytes(image)
            if out_dir is not None:
                path = out_dir / device.id / state / f"{view}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(pngs[(keys[state], view)])
                if index is not None:
                    index.append({"device": device.id, "state": state, "view": view,
                                  "file": f"{device.id}/{state}/{view}.png", "look": keys[state]})
    report = DeviceReport(device.id, 0)
    for a, b in itertools.combinations(states, 2):
        report.pairs += 1
        if keys[a] == keys[b] or not any(differs(renders[(keys[a], v)], renders[(keys[b], v)]) for v in views):
            report.alike.append((a, b, reasons.get(frozenset((a, b)), "")))
    return report


def demo_devices(only: Iterable[str] = ()) -> list[tuple[Device, tuple[tuple[str, str, str], ...]]]:
    """The demo library's devices (all, or those named) with the pairs their category lists as invisible."""
    wanted = set(only)
    invisible = {spec.name: spec.invisible for spec in parse_spec()}
    devices, _ = build_library(seed=7)
    out = []
    for data in devices:
        if wanted and data["id"] not in wanted:
            continue
        device = load_device(data)
        out.append((device, invisible.get(device.category, ())))
    missing = wanted - {d.id for d, _ in out}
    if missing:
        raise KeyError(f"no such demo device: {', '.join(sorted(missing))}")
    return out


def render_states(devices: Sequence[tuple[Device, Iterable[tuple[str, str, str]]]], out_dir: Path) -> list[DeviceReport]:
    """Render and check every device; write the PNGs and `index.json` (files and per-device figures)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    index: list[dict] = []
    reports = [check_device(device, invisible=invisible, out_dir=out_dir, index=index) for device, invisible in devices]
    summary = {
        "files": index,
        "devices": {r.device: {"pairs": r.pairs, "distinguishable": r.distinguishable,
                               "alike": [{"states": [a, b], "why": why} for a, b, why in r.alike]} for r in reports},
        "pairs": sum(r.pairs for r in reports),
        "distinguishable": sum(r.distinguishable for r in reports),
    }
    (out_dir / "index.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return reports


def format_report(reports: list[DeviceReport]) -> str:
    lines = []
    for r in reports:
        lines.append(f"{r.device:28s} {r.distinguishable:3d}/{r.pairs:3d} pairs distinguishable ({100 * r.share:5.1f}%)")
        for a, b, why in r.alike:
            lines.append(f"    alike: {a} / {b}" + (f" (deliberate: {why})" if why else " (NOT declared)"))
    pairs = sum(r.pairs for r in reports)
    good = sum(r.distinguishable for r in reports)
    lines.append(f"total: {good}/{pairs} state pairs distinguishable ({100 * good / pairs if pairs else 100:.1f}%)"
                 f" over {len(reports)} devices")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator render-states",
                                     description="Render every (device, state, view) and report distinguishable state pairs.")
    parser.add_argument("--library", choices=["demo"], default="demo", help="which device library (only 'demo')")
    parser.add_argument("--out", required=True, type=Path, help="folder for DIR/<device>/<state>/<view>.png and index.json")
    parser.add_argument("--devices", default="", help="comma-separated device ids (default: every device)")
    args = parser.parse_args(argv)
    try:
        devices = demo_devices([d for d in args.devices.split(",") if d])
    except KeyError as exc:
        print(f"render-states: {exc.args[0]}", file=sys.stderr)
        return 2
    print(format_report(render_states(devices, args.out)))
    return 0

