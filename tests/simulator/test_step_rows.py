"""A step runs its three statements on a plain cursor (simulator.services.episodes): the rows it writes must be the
ones the ORM writes for the same values, column by column, for every column of Step and Episode, so a field added to
either model, or a conversion changed, cannot make the fast path diverge unseen. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.benchmarks.vge.core.engine import EpisodeState, StepOutcome
from simulator.models import Episode, Step
from simulator.services.episodes import episode_start, episode_step
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER


def stored_columns(model, pk: int) -> dict[str, object]:
    """The row as the database holds it: every concrete column, read on a plain cursor (no field conversions)."""
    columns = [field.column for field in model._meta.concrete_fields]
    sql, params = model.objects.filter(pk=pk).values_list(*[f.attname for f in model._meta.concrete_fields]) \
        .query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return dict(zip(columns, cursor.fetchone()))


def orm_twin(episode: Episode, played: list[tuple[str, StepOutcome]]) -> Episode:
    """An episode of the same owner, task and kind, written by the ORM: its fields as the fast path left them (read
    back through the fields), its steps from what the engine answered (the step's time copied: only it is unknown)."""
    twin = Episode.objects.create(owner_id=episode.owner_id, task_id=episode.task_id, kind=episode.kind,
                                  state={}, perturbation=episode.perturbation)
    Episode.objects.filter(pk=twin.pk).update(
        **{f.attname: getattr(episode, f.attname) for f in Episode._meta.concrete_fields if not f.primary_key})
    for step, (output, outcome) in zip(Step.objects.filter(episode=episode).order_by("index"), played, strict=True):
        twin_step = Step.objects.create(episode=twin, index=outcome.turn, raw_output=output,
                                        parsed_action=outcome.action.as_dict() if outcome.action else None,
                                        outcome=outcome.as_dict())
        Step.objects.filter(pk=twin_step.pk).update(created_at=step.created_at)
    return twin


@pytest.mark.django_db
def test_a_steps_rows_are_the_ones_the_orm_writes_column_by_column(user, tiny_split):
    episode, _ = episode_start(user=user, task_id="tiny/t2")
    played = []
    for output in (OPEN_DASH, PRESS_POWER, "no action at all"):  # a step with no parsed action stores NULL
        outcome, _ = episode_step(episode_id=episode.pk, user=user, output=output)
        played.append((output, outcome))
    episode.refresh_from_db()
    assert episode.state == EpisodeState.from_dict(episode.state).as_dict() and episode.state["turns"] == 3
    assert not episode.finished
    twin = orm_twin(episode, played)

    fast, orm = stored_columns(Episode, episode.pk), stored_columns(Episode, twin.pk)
    assert set(fast) == {f.column for f in Episode._meta.concrete_fields}
    for column in fast:
        if column != Episode._meta.pk.column:
            assert fast[column] == orm[column], column

    fast_steps = Step.objects.filter(episode=episode).order_by("index").values_list("pk", flat=True)
    orm_steps = Step.objects.filter(episode=twin).order_by("index").values_list("pk", flat=True)
    assert len(fast_steps) == len(orm_steps) == 3
    for fast_pk, orm_pk in zip(fast_steps, orm_steps):
        fast, orm = stored_columns(Step, fast_pk), stored_columns(Step, orm_pk)
        for column in fast:
            if column not in (Step._meta.pk.column, Step._meta.get_field("episode").column):
                assert fast[column] == orm[column], column
    assert stored_columns(Step, fast_steps[2])[Step._meta.get_field("parsed_action").column] is None


@pytest.mark.django_db
def test_a_step_locks_only_the_episode_row_where_the_database_can(user, tiny_split):
    episode, _ = episode_start(user=user, task_id="tiny/t2")
    with CaptureQueriesContext(connection) as captured:
        episode_step(episode_id=episode.pk, user=user, output=OPEN_DASH)
    [select] = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
    locks = f'FOR UPDATE OF {connection.ops.quote_name(Episode._meta.db_table)}'
    assert select.endswith(locks) == connection.features.has_select_for_update_of, select
    assert "ORDER BY" not in select
