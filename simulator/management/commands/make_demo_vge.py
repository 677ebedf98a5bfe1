"""Write the generated VGE library (26 categories x variants, tasks, split `demo`) to the database. Idempotent."""
from django.core.management.base import BaseCommand

from simulator.services import demo_library_install


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variants", type=int, default=2, help="devices per category (at least 2)")

    def handle(self, *args, seed: int, variants: int, **options):
        report = demo_library_install(seed=seed, variants=max(2, variants))
        self.stdout.write(f"VGE demo: {report.devices} devices, {report.tasks} tasks in split {report.split}")
