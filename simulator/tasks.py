"""Celery wrappers for VGE: recompute the Human row of the board after a baseline episode ends."""
from celery import shared_task

from simulator.human_board import human_board_refresh


@shared_task(acks_late=True, ignore_result=True)
def human_board_refresh_task() -> None:
    human_board_refresh()  # idempotent: recomputes the whole row from the stored episodes
