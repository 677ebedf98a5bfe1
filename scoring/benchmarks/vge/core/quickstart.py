"""The agent API's quick start: one episode played from a script with the documented client
(`simulator/agent_client.py`), in under 20 lines. The one text `/api/docs/` (the schema's description) and the VGE
format page show; tests/simulator/test_quickstart.py runs it, as read back from both pages, against a live server."""
from __future__ import annotations

QUICKSTART = '''\
import os
from simulator.agent_client import AgentClient

def my_model(instruction, image_png, feedback):  # your VLM: the view (PNG bytes) and texts in, one action out
    return "Thinking: the big button may start it. Action: Press(coord=[500, 500], params=[0])"

client = AgentClient(os.environ.get("EBH_URL", "http://127.0.0.1:8000"), token=os.environ["EBH_TOKEN"])
task = next(client.tasks())                  # the first task you may play (filters: split=, category=)
obs = client.start(task["id"])               # a new episode: its id and the first observation
feedback = None
while not obs["done"]:
    image = client.view(obs["episode"])      # the current view as PNG bytes
    turn = client.act(obs["episode"], my_model(obs["instruction"], image, feedback))
    obs, feedback = turn["observation"], turn["feedback"].get("text")
print(client.episode(obs["episode"])["metrics"])  # SR, SPL, ... of the finished episode
'''

QUICKSTART_INTRO = (
    "Play one episode from Python with the hub's agent client (`simulator/agent_client.py`, needs only httpx): set "
    "EBH_URL to this site and EBH_TOKEN to your API token (from your token page), replace `my_model` with your model, "
    "and run it from a checkout of the hub. When your episodes are played, bundle them into a submission with "
    "`client.bundle(model=\"My-Agent\", split=...)` (POST /api/vge/submissions/).")
