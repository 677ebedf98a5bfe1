"""`python -m simulator render-states --library demo --out DIR [--devices a,b]`: render every (device, state,
view) of the demo library and print the share of state pairs a player can tell apart. No Django needed."""
import sys

from scoring.benchmarks.vge.core import render_check

COMMANDS = {"render-states": render_check.main}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(f"usage: python -m simulator {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
