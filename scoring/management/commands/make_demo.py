from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError

from scoring.benchmarks import plugins

# Demo content that belongs to no benchmark (each benchmark's plugin names its own generator).
OTHER_DEMO_COMMANDS = ["make_demo_annotation", "make_demo_hub_runs"]  # hub runs last: they run on the splits above


class Command(BaseCommand):
    help = "Generate every benchmark's demo content (deterministic, idempotent)."

    def handle(self, *args, **options):
        commands = [plugin.demo_command for plugin in plugins() if plugin.demo_command] + OTHER_DEMO_COMMANDS
        missing = [name for name in commands if name not in get_commands()]
        if missing:
            raise CommandError(f"demo commands not found: {', '.join(missing)}")
        for name in commands:
            self.stdout.write(f"== {name}")
            call_command(name)
