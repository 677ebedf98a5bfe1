"""`python -m simulator render-states --library demo --out DIR [--devices a,b]`: render every (device, state,
view) of the demo library and print the share of state pairs a player can tell apart.
`python -m simulator play --url URL --token KEY [--task ID]`: play one episode through the agent API with a random
clicker (simulator/agent_client.py). No Django needed."""
import sys

from scoring.benchmarks.vge.core import render_check
from simulator.agent_client import play_main

COMMANDS = {"render-states": render_check.main, "play": play_main}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(f"usage: python -m simulator {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
