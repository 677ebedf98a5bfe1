"""A large, deterministic hub for the speed scripts (issue 34): `--scale 100` is a hub at 100× today's data.

At scale S every benchmark gets a split named `scale` (public ground truth, so every page of it can be read) whose
samples are its demo split's samples repeated up to the size given with `--samples SLUG=N` (the papers' sizes, passed
by perf/hub_scale.py: a benchmark's size does not grow with the hub), and 20·S model entries each with one scored
submission per benchmark, with a score and one per-sample score per sample. Scores and per-sample rows are the demo's
own scored rows (their keys, details and columns, so every page renders them as it renders real ones) with each
model's outcomes drawn again from its skill. One user in ten owns a tenth of the submissions: the heavy user of the
submission list. Then the other apps' generators run (`make_large_comparisons`: the board comparisons the worker
stores as scores land; `make_large_episodes`, `make_large_annotation`) with the scale.

Needs `make_demo` first (it runs it when the demo split is missing). Idempotent per scale: it refuses to run twice.

Speed and size (PostgreSQL, 2 shared cores): the per-sample table is loaded without its secondary indexes and foreign
keys (`bulk_load`), some 35,000 rows/s; a VGE row keeps its realistic replay trace (6 kB of JSON, 1.7 kB as stored,
compressed), so the table takes about 1.6 kB a row with its indexes: 0.68 GiB per 1× of scale, 100× about 68 GiB.
"""
from __future__ import annotations

import random
import time
from contextlib import contextmanager
from typing import Any, Iterator

from django.contrib.auth import get_user_model
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from scoring.benchmarks import plugins
from scoring.models import ModelEntry, Sample, SampleScore, Score, Split, Submission

SPLIT = "scale"
ENTRIES_PER_SCALE = 20
OTHER_LARGE_COMMANDS = ["make_large_comparisons", "make_large_episodes", "make_large_annotation"]
BATCH = 5000
MODELS_PER_BATCH = 25  # submissions made, and their per-sample rows written, per statement


def _sizes(text: list[str], option: str = "--samples") -> dict[str, int]:
    sizes = {}
    for item in text:
        slug, _, count = item.partition("=")
        if not count.isdigit():
            raise CommandError(f"{option} {item!r}: expected SLUG=N, e.g. {option} my-bench=699")
        sizes[slug] = int(count)
    return sizes


def _shifted(value: Any, delta: float) -> Any:
    """A figure of a template score moved by a model's skill, kept in its column's range where it is a percentage."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return round(min(100.0, max(0.0, value + delta)), 4) if 0 <= value <= 100 else value


def _entries(models: range) -> dict[int, ModelEntry]:
    """The model entries of these model numbers, made where the first benchmark has not made them yet."""
    slugs = {m: f"scale-vlm-{m:05d}" for m in models}
    found = {e.slug: e for e in ModelEntry.objects.filter(slug__in=slugs.values())}
    ModelEntry.objects.bulk_create([
        ModelEntry(slug=slug, name=f"Scale-VLM-{m:05d}", organisation=f"Lab {m % 97}", parameters_b=float(2 ** (m % 8)))
        for m, slug in slugs.items() if slug not in found])
    found = {e.slug: e for e in ModelEntry.objects.filter(slug__in=slugs.values())}
    return {m: found[slug] for m, slug in slugs.items()}


class Command(BaseCommand):
    help = "Generate a large deterministic hub for the speed scripts (perf/hub_scale.py): --scale 1, 10 or 100."

    def add_arguments(self, parser):
        parser.add_argument("--scale", type=int, default=1, help="1 = 20 model entries per benchmark; 100 = 2,000")
        parser.add_argument("--samples", action="append", default=[], metavar="SLUG=N",
                            help="samples of a benchmark's scale split (default: its demo split's size)")
        parser.add_argument("--entries", action="append", default=[], metavar="SLUG=N",
                            help="at most N model entries on a benchmark's scale split (default: 20 x scale), for a "
                                 "disk that cannot hold them all")
        parser.add_argument("--no-summaries", action="append", default=[], metavar="SLUG",
                            help="leave a benchmark's Analysis summaries unmade (its tab makes them when first read)")
        parser.add_argument("--without", action="append", default=[], choices=OTHER_LARGE_COMMANDS, metavar="COMMAND",
                            help="leave out one of the other generators (" + ", ".join(OTHER_LARGE_COMMANDS) + "), "
                                 "e.g. make_large_episodes for a hub whose boards alone are measured")
        parser.add_argument("--seed", type=int, default=34)

    def handle(self, *args, scale: int, samples: list[str], entries: list[str], no_summaries: list[str],
               without: list[str], seed: int, **options):
        if scale < 1:
            raise CommandError("--scale must be 1 or more")
        sizes, caps = _sizes(samples), _sizes(entries, "--entries")
        entries_at_scale = ENTRIES_PER_SCALE * scale
        self.seed = seed
        if Split.objects.filter(name=SPLIT).exists():
            raise CommandError(f"this database already has `{SPLIT}` splits: generate into a fresh database")
        if not Split.objects.filter(name="demo").exists():
            call_command("make_demo")
        users = self._users(scale)
        rng = random.Random(seed)
        with bulk_load([SampleScore._meta.db_table], self.stdout):
            for plugin in plugins():
                demo = Split.objects.filter(benchmark__slug=plugin.slug, name="demo").first()
                if demo is None or not demo.samples.exists():
                    self.stdout.write(f"{plugin.slug}: no demo split with samples, skipped")
                    continue
                started = time.monotonic()
                split, count = self._split(demo, sizes.get(plugin.slug))
                count_cap = caps.get(plugin.slug, entries_at_scale)
                rows = self._submissions(split, demo, count=min(entries_at_scale, count_cap), users=users, rng=rng)
                self.stdout.write(f"{plugin.slug}: {count} samples, {rows} scored submissions "
                                  f"({time.monotonic() - started:.0f} s)")
        for name in OTHER_LARGE_COMMANDS:
            if name in without:
                self.stdout.write(f"{name}: left out (--without)")
            elif name in get_commands():
                started = time.monotonic()
                call_command(name, scale=scale, seed=seed, stdout=self.stdout)
                self.stdout.write(f"{name}: {time.monotonic() - started:.0f} s")
        # What the worker writes when each score lands: the Analysis tab's per-submission summaries (without them the
        # first Analysis request of each benchmark makes them all, minutes at 10x).
        started = time.monotonic()
        for plugin in plugins():
            if plugin.slug in no_summaries:
                self.stdout.write(f"analysis_summaries: {plugin.slug} left unmade (--no-summaries)")
            else:
                call_command("analysis_summaries", benchmark=plugin.slug, stdout=self.stdout)
        self.stdout.write(f"analysis_summaries: {time.monotonic() - started:.0f} s")

    def _users(self, scale: int) -> list:
        user_model = get_user_model()
        names = [f"scale-user-{i:04d}" for i in range(max(10, 2 * scale))]
        user_model.objects.bulk_create([user_model(username=name) for name in names], ignore_conflicts=True)
        return list(user_model.objects.filter(username__in=names).order_by("username"))

    @transaction.atomic
    def _split(self, demo: Split, size: int | None) -> tuple[Split, int]:
        split = Split.objects.create(benchmark=demo.benchmark, name=SPLIT, hidden_ground_truth=False,
                                     description="Generated by make_large_hub for the speed scripts.")
        templates = list(demo.samples.order_by("position", "pk"))
        size = size or len(templates)
        batch = []
        for i in range(size):
            t = templates[i % len(templates)]
            key = t.key if i < len(templates) else f"{t.key}~{i // len(templates)}"
            batch.append(Sample(split=split, key=key, position=i, category=t.category, group=t.group, task=t.task,
                                inputs=t.inputs, ground_truth=t.ground_truth))
            if len(batch) >= BATCH:
                Sample.objects.bulk_create(batch)
                batch = []
        Sample.objects.bulk_create(batch)
        return split, size

    def _submissions(self, split: Split, demo: Split, *, count: int, users: list, rng: random.Random) -> int:
        template = (Submission.objects.filter(split=demo, status=Submission.Status.SCORED, score__isnull=False)
                    .exclude(source=Submission.Source.REPORTED).select_related("score").order_by("pk").first())
        if template is None:
            return 0
        rows = {r.key: r for r in SampleScore.objects.filter(submission=template)}
        samples = list(split.samples.order_by("position").values_list("pk", "key", "task"))
        _prototype_create(samples, rows)
        heavy = users[0]
        score = template.score
        for first in range(0, count, MODELS_PER_BATCH):
            models = range(first, min(count, first + MODELS_PER_BATCH))
            # drawn in the order of one model at a time: the skill, then its breakdown's spreads
            drawn = []
            for m in models:
                skill = rng.uniform(-30, 30)
                drawn.append((m, skill, {k: _shifted(v, skill + rng.uniform(-5, 5))
                                         for k, v in score.breakdown.items()}))
            with transaction.atomic():
                entries = _entries(models)
                subs = Submission.objects.bulk_create([Submission(
                    model_entry=entries[m], split=split, submitter=heavy if m % 10 == 0 else users[1 + m % (len(users) - 1)],
                    status=Submission.Status.SCORED, scorer_version=template.scorer_version, options=template.options,
                    started_at=timezone.now(), finished_at=timezone.now(), size_bytes=template.size_bytes)
                    for m in models])
                Score.objects.bulk_create([Score(
                    submission=sub, overall=_shifted(score.overall, skill), scorer_version=score.scorer_version,
                    breakdown=breakdown,
                    intervals={k: [_shifted(lo, skill), _shifted(hi, skill)] for k, (lo, hi) in score.intervals.items()},
                    details=score.details, readings=score.readings) for sub, (_, skill, breakdown) in zip(subs, drawn)])
                _sample_scores_insert([(sub.pk, m, min(0.95, max(0.05, 0.5 + skill / 100)))
                                       for sub, (m, skill, _) in zip(subs, drawn)], seed=self.seed)
        _prototype_drop()
        return count


@contextmanager
def bulk_load(tables: list[str], stdout: Any) -> Iterator[None]:
    """On PostgreSQL, a bulk load as its manual advises: the tables' secondary indexes, unique constraints and foreign
    keys dropped while the rows go in (an index kept up row by row costs a random page visit per row once it outgrows
    the buffers, and each foreign key a trigger and a look-up per row), then made again from the loaded rows (one sort
    per index, one join per foreign key, which checks every row as the triggers would have), the tables analysed, and
    commits not waited for on disk (synchronous_commit off: a crash loses the last commits, never consistency).
    The primary keys stay. Elsewhere (SQLite: the tests) it does nothing."""
    if connection.vendor != "postgresql":
        yield
        return
    saved: list[tuple[str, str, str]] = []  # (table, name, definition): indexes as CREATE INDEX, constraints as ADD
    with connection.cursor() as cursor:
        # Inside a transaction (the tests) a table with foreign-key checks still pending cannot be altered: run them.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET synchronous_commit = off")
        # the prototype rows (VGE's: 25 MB) stay in memory, not read from disk for each submission; a session that
        # has used temporary tables already (a second run in one process: the tests) keeps its size
        try:
            with transaction.atomic():
                cursor.execute("SET temp_buffers = '256MB'")
        except DatabaseError:
            pass
        for table in tables:
            cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                           "WHERE conrelid = %s::regclass AND contype IN ('f', 'u') ORDER BY contype, conname",
                           [table])
            constraints = cursor.fetchall()
            cursor.execute("SELECT c.relname, pg_get_indexdef(x.indexrelid) FROM pg_index x "
                           "JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = %s::regclass "
                           "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid "
                           "AND k.conrelid = x.indrelid) ORDER BY c.relname", [table])
            indexes = cursor.fetchall()
            for name, _ in constraints:
                cursor.execute(f"ALTER TABLE {connection.ops.quote_name(table)} DROP CONSTRAINT "
                               f"{connection.ops.quote_name(name)}")
            for name, _ in indexes:
                cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
            saved += [(table, name, definition) for name, definition in indexes]
            saved += [(table, name, f"ALTER TABLE {connection.ops.quote_name(table)} ADD CONSTRAINT "
                                    f"{connection.ops.quote_name(name)} {definition}")
                      for name, definition in constraints]
    try:
        yield
    finally:
        started = time.monotonic()
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET maintenance_work_mem = '512MB'")
            for _, _, definition in saved:
                cursor.execute(definition)
            for table in tables:
                cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
            cursor.execute("RESET maintenance_work_mem")
            cursor.execute("RESET synchronous_commit")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")  # Django's foreign keys are deferred
        stdout.write(f"{', '.join(tables)}: {len(saved)} indexes and constraints made again, analysed "
                     f"({time.monotonic() - started:.0f} s)")


# Per-sample rows dominate the large hub (100x: 2,000 entries x (6,661 + 699 + 14,953) = 45 million), so they are
# written inside the database, one INSERT ... SELECT per batch of submissions from a temporary table holding each sample's
# prototype row (the demo's scored row for it), never as Python objects. Whether a sample is a hit is drawn in SQL
# by an integer hash of (seed, model number, sample index) that SQLite and PostgreSQL compute alike: the same hub
# on both, deterministic, with nothing about the draw left to the order rows are written in.
PROTOTYPE = "large_hub_sample_prototype"
PROTOTYPE_COLUMNS = ("sample_id", "index", "key", "task", "outcome", "invalid", "error", "components", "details",
                     "readings")
HASH_MODULUS = 2147483647  # 2^31 - 1, prime: a square below it stays within a signed 64-bit integer


def _prototype_create(samples: list, rows: dict) -> None:
    """The temporary table of prototype rows: per sample of the split, its key and task, the template's components
    and details, and the outcome a miss gets (the template's own when it missed, else "wrong")."""
    table = connection.ops.quote_name(SampleScore._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in PROTOTYPE_COLUMNS)
    json_field = SampleScore._meta.get_field("details")
    as_json = lambda value: json_field.get_db_prep_value(value, connection)  # noqa: E731
    values = []
    for index, (pk, key, task) in enumerate(samples):
        t = rows.get(key.split("~")[0])
        miss = t.outcome if t is not None and t.outcome != "ok" else "wrong"
        values.append((pk, index, key, task, miss, False, "", as_json(t.components if t is not None else {}),
                       as_json(t.details if t is not None else {}), as_json({})))
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {PROTOTYPE}")
        cursor.execute(f"CREATE TEMPORARY TABLE {PROTOTYPE} AS SELECT {columns} FROM {table} WHERE 1 = 0")
        placeholders = ", ".join(["%s"] * len(PROTOTYPE_COLUMNS))
        for start in range(0, len(values), BATCH):
            cursor.executemany(f"INSERT INTO {PROTOTYPE} ({columns}) VALUES ({placeholders})",
                               values[start:start + BATCH])


def _prototype_drop() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {PROTOTYPE}")


def _sample_scores_insert(submissions: list[tuple[int, int, float]], *, seed: int) -> None:
    """Submissions' per-sample scores, written by the database from the prototype rows in one statement: for each
    (submission id, model number, hit rate), a hit (score 1, "ok") where the sample's draw falls below the rate, else
    a miss (score 0, the prototype's miss outcome)."""
    q = connection.ops.quote_name
    columns = ["submission_id", "score", *PROTOTYPE_COLUMNS]
    # draw = ((a^2 + i) mod P)^2 mod P with a = 48271 i + 69621 m + 16807 seed + 1 (mod P): squares mix the linear
    # start, and every product stays below 2^62, so neither database overflows or rounds.
    select = ", ".join("CASE WHEN draw < threshold THEN 'ok' ELSE " + q("outcome") + " END" if c == "outcome" else q(c)
                       for c in PROTOTYPE_COLUMNS)
    values = ", ".join(["(CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT))"] * len(submissions))
    sql = (
        f"INSERT INTO {q(SampleScore._meta.db_table)} ({', '.join(q(c) for c in columns)}) "
        f"SELECT sub, CASE WHEN draw < threshold THEN 1.0 ELSE 0.0 END, {select} FROM ("
        f"SELECT b.*, (b.h2 * b.h2) %% {HASH_MODULUS} AS draw FROM ("
        f"SELECT a.*, (a.h1 * a.h1 + a.{q('index')}) %% {HASH_MODULUS} AS h2 FROM ("
        f"SELECT t.*, v.sub, v.threshold, (CAST(t.{q('index')} AS BIGINT) * 48271 + v.start) %% {HASH_MODULUS} AS h1 "
        f"FROM (SELECT column1 AS sub, column2 AS start, column3 AS threshold FROM (VALUES {values}) s) v "
        f"CROSS JOIN {PROTOTYPE} t"
        f") a) b) drawn"
    )
    params = []
    for submission_id, model, hit_rate in submissions:
        params += [submission_id, (69621 * model + 16807 * seed + 1) % HASH_MODULUS, int(hit_rate * HASH_MODULUS)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
