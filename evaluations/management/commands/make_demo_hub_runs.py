from django.core.management.base import BaseCommand

from evaluations.demo import demo_hub_runs


class Command(BaseCommand):
    help = "One hub-run row per benchmark: the stand-in model run by the hub on each benchmark's first split."

    def handle(self, *args, **options):
        demo_hub_runs(write=self.stdout.write)
