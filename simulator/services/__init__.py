"""Writes for VGE, one module per subject: the library of devices and tasks, episodes played step by step, the
views they show, bundles of episodes to submissions, the human baseline set.

Every episode (agent API, browser play, replay) goes through `episodes.episode_start` / `episodes.episode_step`, which
call the one engine of scoring.benchmarks.vge.core and persist each step (the episode row locked) before answering.
"""
