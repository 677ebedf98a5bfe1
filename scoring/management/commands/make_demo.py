from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError

# Each benchmark adds its own demo generator; all of them are deterministic and idempotent.
DEMO_COMMANDS = ["make_demo_epic", "make_demo_plan", "make_demo_vge", "make_demo_annotation"]


class Command(BaseCommand):
    help = "Generate every benchmark's demo content (deterministic, idempotent)."

    def handle(self, *args, **options):
        missing = [name for name in DEMO_COMMANDS if name not in get_commands()]
        if missing:
            raise CommandError(f"demo commands not found: {', '.join(missing)}")
        for name in DEMO_COMMANDS:
            self.stdout.write(f"== {name}")
            call_command(name)
