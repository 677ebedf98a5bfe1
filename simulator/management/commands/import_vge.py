"""Load VGE devices (vge-device/1 JSON, view images next to them) and tasks (*.jsonl) made elsewhere."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.benchmarks.vge.core.device import DeviceInvalid
from scoring.benchmarks.vge.core.task_defs import TaskInvalid
from simulator.services.library import vge_import


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="a device JSON file or a folder of devices and task files")
        parser.add_argument("--split", help="also make one sample per task in this vge-bench split")
        parser.add_argument("--public", action="store_true", help="the split's ground truth is public")

    def handle(self, *args, path: Path, split: str | None, public: bool, **options):
        if not path.exists():
            raise CommandError(f"{path}: no such file or folder")
        try:
            report = vge_import(path=path, split_name=split, public=public)
        except (DeviceInvalid, TaskInvalid) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"imported {report.devices} devices and {report.tasks} tasks" + (f" into {split}" if split else ""))
