"""Reads for boards, model pages and drill-down. Board rows are cached per split under the scoring cache
version plus a cheap fingerprint of the split's scored submissions (so a score written by another process,
whose local cache we cannot bump, still shows), and never touch per-sample rows."""
from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import connection
from django.db.models import Aggregate, CharField, Count, Exists, F, Max, OuterRef, QuerySet, Sum
from django.db.models.functions import Mod

from leaderboard.core.board import BoardRow, PairSignificance, combine_runs, parameters_from_name
from leaderboard.core.readings import Figures, figures_under
from leaderboard.models import AnalysisSummary, BoardChange, BoardChangeHorizon, BoardComparison
from scoring import access
from scoring.benchmarks import UnknownBenchmark, plugin_for, plugins
from scoring.core.analysis import ModelSamples, SampleRow
from scoring.core.disclosure import disclosed
from scoring.core.provenance import WITHHELD
from scoring.core.states import provisional_of
from scoring.models import Benchmark, ModelEntry, Phase, SampleScore, Score, ScoreVersion, Split, Submission
from scoring.phases import phase_shown
from scoring.selectors import board_cache_version, board_version_key, on_boards

ROWS_TIMEOUT = 300
SPLIT_TIMEOUT = 300  # splits change rarely; the fast path reads this entry on every request
FINGERPRINT_TIMEOUT = 1
T = TypeVar("T")


class BoardNotFound(LookupError):
    pass


def benchmark_split(*, slug: str, split_name: str | None, version: int | None = None) -> tuple[Benchmark, Split]:
    """The benchmark and split a board URL names (its newest version, or `version`: each version of a split has a
    board of its own, issue 29); when none is given, the first of `board_splits` (the default split, else one with
    entries)."""
    benchmark = Benchmark.objects.filter(slug=slug).first()
    if benchmark is None:
        known = ", ".join(Benchmark.objects.values_list("slug", flat=True))
        raise BoardNotFound(f"Unknown benchmark '{slug[:60]}'. Known: {known}.")
    if split_name and version is not None:
        split = benchmark.splits.filter(name=split_name, version=version).first()
        if split is None:
            known = ", ".join(str(v) for v in benchmark.splits.filter(name=split_name).values_list("version", flat=True))
            raise BoardNotFound(f"No version {version} of split '{split_name[:60]}' of {benchmark.slug}. "
                                f"Versions: {known or 'none'}.")
    elif split_name:
        split = benchmark.splits.filter(name=split_name).order_by("-version").first()
    else:
        split = next(iter(board_splits(benchmark=benchmark)), None)
    if split is None:
        known = ", ".join(sorted(set(benchmark.splits.values_list("name", flat=True)))) or "none"
        raise BoardNotFound(f"Unknown split '{(split_name or '')[:60]}' for {benchmark.slug}. Known: {known}.")
    return benchmark, split


def board_splits(*, benchmark: Benchmark) -> list[Split]:
    """A board's split tabs in order, the one it opens on first: the default split, then splits with entries
    (scored public submissions), then empty ones (a split just published into has none yet); each group by name,
    newest version first."""
    # Whether a split has an entry, not how many: one indexed look-up per split however many rows its board has.
    splits = list(benchmark.splits.annotate(has_entries=Exists(board_submissions(OuterRef("pk")))))
    newest: dict[str, int] = {}
    for split in splits:
        newest[split.name] = max(newest.get(split.name, 0), split.version)
    for split in splits:
        split.newest = newest[split.name]  # an older version's tab names its version (a board per version)
    return sorted(splits, key=lambda s: (not s.is_default, not s.has_entries, s.name, -s.version))


def analysis_split_name(*, slug: str) -> str | None:
    """The split the Analysis tab opens on when the URL names none: the first of the board's tabs (`board_splits`
    order) with a public upload scored here (its figures need per-sample scores; the papers' rows have none), else
    None (the board's own default)."""
    benchmark = Benchmark.objects.filter(slug=slug).first()
    if benchmark is None:
        return None
    scored = set(on_boards(Submission.objects.filter(
        split__benchmark=benchmark, source=Submission.Source.UPLOAD, status=Submission.Status.SCORED,
    )).values_list("split_id", flat=True).distinct())
    return next((s.name for s in board_splits(benchmark=benchmark) if s.pk in scored), None)


def benchmark_split_cached(*, slug: str, split_name: str | None, version: int | None = None
                           ) -> tuple[Benchmark, Split]:
    """`benchmark_split`, remembered for a few seconds: splits change rarely, boards are read often."""
    key = f"board-split:{slug[:60]}:{(split_name or '')[:60]}" + (f":v{version}" if version is not None else "")
    found = _split_lookup(key)
    if found is None:
        found = benchmark_split(slug=slug, split_name=split_name, version=version)
        cache.set(key, found, SPLIT_TIMEOUT)
    return found


# The split lookup is also kept per process for a few seconds: every board read needs it, and from a shared cache it
# is a round trip plus unpickling two model instances. Only splits that exist are remembered.
SPLIT_LOCAL_SECONDS = 5.0
_local_splits: dict[str, tuple[float, tuple[Benchmark, Split]]] = {}


def _split_lookup(key: str) -> tuple[Benchmark, Split] | None:
    now = time.monotonic()
    hit = _local_splits.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    found = cache.get(key)
    if found is not None:
        _local_splits[key] = (now + SPLIT_LOCAL_SECONDS, found)
    return found


def board_fingerprint_recent(*, split_id: int) -> str:
    """The fingerprint, re-read from the database at most once per FINGERPRINT_TIMEOUT seconds per process."""
    key = f"board-fp:{split_id}"
    found = cache.get(key)
    if found is None:
        found = board_fingerprint(split_id=split_id)
        cache.set(key, found, FINGERPRINT_TIMEOUT)
        cache.set(f"board-fp-last:{split_id}", found, ROWS_TIMEOUT)
    return found


def board_page_key_cached(*, slug: str, split_name: str | None, full_path: str) -> str | None:
    """The whole-page cache key of an anonymous board request, from the cache alone (None on any miss):
    the ASGI fast path calls this without touching the database, in two cache reads (one round trip each to a
    shared cache): the split, then its version and fingerprint together."""
    found = _split_lookup(f"board-split:{slug[:60]}:{(split_name or '')[:60]}")
    if found is None:
        return None
    split_id = found[1].pk
    version_key, fingerprint_key = board_version_key(split_id), f"board-fp:{split_id}"
    both = cache.get_many([version_key, fingerprint_key])
    version, fingerprint = both.get(version_key), both.get(fingerprint_key)
    if version is None:
        return None
    if fingerprint is None:
        # Stale while one request refreshes: the first to notice the expiry goes through the view (which
        # re-reads the data); the others keep the last known fingerprint for that moment.
        if cache.add(f"board-fp-refresh:{split_id}", 1, FINGERPRINT_TIMEOUT):
            return None
        fingerprint = cache.get(f"board-fp-last:{split_id}")
        if fingerprint is None:
            return None
    return board_page_key(_board_key(split_id, version, fingerprint), full_path)


def board_fingerprint(*, split_id: int) -> str:
    """What changes when a board's rows change. On PostgreSQL, the split's rows' entries in the board-change log
    (their number, the newest, the pruning horizon: any write to its rows, a transaction committing late included;
    a comparison a page stored while it was built changes no fingerprint); elsewhere, scored submissions (count,
    newest, last finish) and their headline figures (a score recomputed in place after a human judgement changes
    only these)."""
    # The phase's words ("closes in 5 hours", "closed") are on the page too: a cached page turns with them, and
    # rows held back until their phase closes show at that moment, with no write.
    phase = Phase.objects.filter(splits=split_id).first()
    when = phase_shown(phase).when.replace(" ", "_") if phase is not None else ""
    if connection.vendor == "postgresql":
        logged = BoardChange.objects.filter(split_id=split_id, kind=BoardChange.Kind.ROW).aggregate(
            n=Count("id"), top=Max("id"))
        below = BoardChangeHorizon.objects.aggregate(below=Max("below"))["below"] or 0
        return f"log-{logged['n']}-{logged['top']}-{below}-{when}"
    agg = on_boards(Submission.objects.filter(split_id=split_id, status=Submission.Status.SCORED)).aggregate(
        n=Count("id"), last=Max("finished_at"), top=Max("id"), known=Count("score__overall"),
        total=Sum("score__overall"),
    )
    stamp = agg["last"].timestamp() if agg["last"] else 0
    return f"{agg['n']}-{agg['top']}-{stamp:.6f}-{agg['known']}-{(agg['total'] or 0):.6f}-{when}"


def board_cache_key(*, split_id: int) -> str:
    """Changes as soon as this process bumps the version (scoring.events), and within a second when a score is
    written by another process (whose in-memory cache bump we cannot see)."""
    version = board_cache_version(split_id=split_id)
    return _board_key(split_id, version, board_fingerprint_recent(split_id=split_id))


def board_fingerprint_of_key(board_key: str) -> str:
    """The data fingerprint a board cache key was made with (what a live board page compares on reconnect)."""
    return board_key.rsplit(":", 1)[-1]


def _board_key(split_id: int, version: int, fingerprint: str) -> str:
    return f"board:{split_id}:v{version}:{fingerprint}"


def board_page_key(board_key: str, full_path: str) -> str:
    """The whole-response cache key of a board read: the page of an anonymous reader, the board API's JSON and the
    exports (the views and the ASGI fast path share it). With the board key it names the split, the scoring cache
    version (bumped when a score lands) and the data fingerprint; the full path names the format (page, API,
    export.csv, export.json), the split name, the reading and the filters. A long path is named by its digest, so
    two paths that differ only past some length (a reading after a long parameter) never share a key."""
    if len(full_path) > PAGE_PATH_KEPT:
        full_path = "sha256:" + hashlib.sha256(full_path.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{board_key}:page:{full_path}"


PAGE_PATH_KEPT = 300  # characters of a full path a page key holds as they are; a longer one: its digest


# Whole responses are kept in this process too, in front of the shared cache: their key names the split, the
# scoring cache version and the data fingerprint, so an entry never goes stale, and a hit costs no round trip to
# Redis (a 100-row board page is some 100 KB to fetch and unpickle). One per page of a split (`_response_slot`): the
# newest key's bytes replace the page's older ones, which no read asks for again once its board changed (kept until
# evicted, 128 of them held some 30 MiB of a 100x board's stale exports: issue 34). Least recently used first out.
LOCAL_RESPONSES_MAX = 128
_local_lock = threading.Lock()
_MISSING = object()


class _Slots:
    """What a process keeps in front of the shared cache, one value per slot (a page, a table, a read): the one made
    for the slot's newest stamp (a key, a content key), which replaces the older; a value asked for with another stamp
    is not found. Bounded: the least recently used slot goes first."""

    def __init__(self, size: int):
        self.size = size
        self._held: OrderedDict[Any, tuple[Any, Any]] = OrderedDict()

    def get(self, slot: Any, stamp: Any) -> Any:
        """The value kept for `slot` under `stamp`, or _MISSING."""
        with _local_lock:
            held = self._held.get(slot)
            if held is None or held[0] != stamp:
                return _MISSING
            self._held.move_to_end(slot)
            return held[1]

    def put(self, slot: Any, stamp: Any, value: Any) -> None:
        with _local_lock:
            self._held[slot] = (stamp, value)
            self._held.move_to_end(slot)
            while len(self._held) > self.size:
                self._held.popitem(last=False)

    def clear(self) -> None:
        with _local_lock:
            self._held.clear()

    def __len__(self) -> int:
        return len(self._held)


_local_responses = _Slots(LOCAL_RESPONSES_MAX)


def _response_slot(key: str) -> str:
    """The page a whole-response key (`board_page_key`) names, whatever the board's version and fingerprint: the
    split and the full path."""
    board_key, _, path = key.partition(":page:")
    return f"{board_key.split(':', 2)[1]}:page:{path}"


def board_response_get(key: str) -> Any:
    """A whole board response (page bytes or a CachedResponse) by its key, or None."""
    found = _local_responses.get(_response_slot(key), key)
    if found is not _MISSING:
        return found
    found = cache.get(key)
    if found is not None:
        _local_responses.put(_response_slot(key), key, found)
    return found


def board_response_set(key: str, value: Any) -> None:
    cache.set(key, value, ROWS_TIMEOUT)
    _local_responses.put(_response_slot(key), key, value)


LOCAL_MEMBERS_MAX = 64  # (name, split) pairs kept by `board_members_kept`
_local_members = _Slots(LOCAL_MEMBERS_MAX)


def board_members_kept(name: str, split_id: int, rows: Sequence[BoardRow], make: Callable[[], T]) -> T:
    """`make()` kept in this process under `name` for the split while its board's `rows` are the same submissions
    (each run of a repeated one) of the same model entries: for what follows those alone, which a score landing,
    a new interval or a note changes none of (e.g. VGE's list of every upload's options for its figures)."""
    members = tuple((r.submission_id, r.run_ids, r.row_type, r.model_name, r.thinking, r.kind) for r in rows)
    found = _local_members.get((name, split_id), members)
    if found is _MISSING:
        found = make()
        _local_members.put((name, split_id), members, found)
    return found


def board_local_responses_clear() -> None:
    """Forget this process's copies of responses, board rows and split lookups (tests that clear the shared cache
    clear these too)."""
    _local_responses.clear()
    _local_members.clear()
    _local_derived.clear()
    with _local_lock:
        _local_rows.clear()
        _local_pairs.clear()
        _local_views.clear()
    _local_splits.clear()


@dataclass(frozen=True)
class CachedResponse:
    """A board read that is the same for every reader (the board API's JSON, the exports), as cached whole."""

    content_type: str
    body: bytes
    filename: str = ""  # sent as an attachment when set


def board_response_cached(*, split_id: int, full_path: str, build) -> CachedResponse:
    """The response cached under the board's current key and this full path; `build()` makes it on a miss."""
    key = board_page_key(board_cache_key(split_id=split_id), full_path)
    found = board_response_get(key)
    if not isinstance(found, CachedResponse):
        found = build()
        board_response_set(key, found)
    return found


def benchmarks_with_option(option: str) -> str:
    """The titles of the benchmarks whose format guide offers an upload option (e.g. "raw"), for a form's help."""
    return ", ".join(p.title for p in plugins() if any(name == option for name, _ in p.format.options))


def headline_key(benchmark_slug: str) -> str:
    """The key of a score's intervals that its benchmark's plugin names as the headline figure's ("overall" for a
    benchmark without one)."""
    try:
        return plugin_for(benchmark_slug).headline_key
    except UnknownBenchmark:
        return "overall"


def _row(sub: Submission, headline: str, *, reading: str = "", readings=(), hidden: bool = False,
         score: Score | ScoreVersion | None = None) -> BoardRow:
    """A submission's board row from its current score, or from `score` (a score an older scorer version made)."""
    score = score if score is not None else sub.score
    entry = sub.model_entry
    # The figures under the reading shown (leaderboard.core.readings): the score's own, a second set stored with
    # it, or none (blank, so unranked, with the reason).
    shown = figures_under(
        readings=readings, key=reading, reported=sub.source == Submission.Source.REPORTED,
        scorer_version=score.scorer_version or sub.scorer_version, hidden=hidden,
        own=Figures(score.overall, score.breakdown or {}, score.intervals or {}),
        stored=(score.readings or {}) if reading else {})  # the headline's figures are the score's own
    intervals = {k: (float(v[0]), float(v[1])) for k, v in shown.intervals.items()
                 if isinstance(v, (list, tuple)) and len(v) == 2 and None not in v}
    if headline in intervals:
        intervals.setdefault("overall", intervals[headline])
    overall = shown.overall if shown.overall is not None else shown.breakdown.get("overall")
    details = score.details if isinstance(score.details, dict) else {}
    provisional = provisional_of(details)  # the same words as the submission's page and the API
    pending = str(provisional)[:120] if provisional is not None else ""
    return BoardRow(
        submission_id=sub.pk,
        model_id=entry.pk,
        model_name=entry.name,
        model_slug=entry.slug,
        kind=entry.kind,
        thinking=entry.thinking,
        parameters_b=entry.parameters_b if entry.parameters_b is not None else parameters_from_name(entry.name),
        parameters_from_name=entry.parameters_b is None and parameters_from_name(entry.name) is not None,
        source="reported" if sub.source == Submission.Source.REPORTED else "scored",
        overall=overall,
        values=shown.breakdown,
        intervals=intervals,
        organisation=entry.organisation,
        scorer_version=score.scorer_version or sub.scorer_version,
        note=sub.note[:200],
        finished_at=sub.finished_at.isoformat() if sub.finished_at else "",
        pending=pending,
        run_set=sub.run_set,
        reading_note=shown.note,
        row_type=sub.source,
        provenance=_public_provenance(getattr(score, "provenance", {}), hidden=hidden),
    )


def _public_provenance(keys: Any, *, hidden: bool) -> dict[str, Any]:
    """A score's provenance keys as anyone reading a board may see them: a hidden split's ground-truth hash
    withheld (scoring.provenance says why)."""
    keys = dict(keys) if isinstance(keys, dict) else {}
    if hidden and keys:
        keys["ground_truth_sha256"] = WITHHELD
    return keys


# Board rows under the headline reading and the current scores, kept in this process per split and brought up to date
# with what changed. An uncached board read (after a score landed) first asks the database for digests of the rows' own
# columns (submission, model entry, the score's id and last change), one per bucket of submissions (id modulo
# DIGEST_BUCKETS: one grouped aggregate, the rows' text never leaves the database); while they are the ones the kept
# rows were made under, the kept rows are the board. Otherwise one light query reads the columns of the rows in the
# buckets whose digest changed, and only the rows whose columns differ are built again (a new or re-scored submission,
# an edited entry); a row gone from the board (withdrawn, made private, held back by its phase) is not in the query.
# Each change is kept with the rows (the rows that went and came, `RowsChange`), for the views made from them to
# follow (`board_view_kept`). Bounded: the least recently read splits go first.
_ROW_COLUMNS = ("pk", "source", "note", "run_set", "finished_at", "scorer_version", "model_entry_id",
                "model_entry__name", "model_entry__slug", "model_entry__kind", "model_entry__thinking",
                "model_entry__parameters_b", "model_entry__organisation", "score__id", "score__updated_at",
                "score__overall", "score__scorer_version", "score__created_at")
LOCAL_ROWS_MAX = 50_000  # rows kept in all, over every split this process has read
ROWS_BUILT_AT_ONCE = 100  # rows built from one read of their scores (`_rows_built`)
DIGEST_BUCKETS = 64  # a change reads the columns of the rows in its bucket: about 1/64 of a large board's
CHANGES_KEPT = 8  # the last changes of a split's rows kept for views made before them


@dataclass(frozen=True)
class RowsChange:
    """The board's rows going from digest `before` to `after`: the rows that left (as they were) and came (as they
    are); a changed row is in both."""

    before: str
    after: str
    gone: tuple[BoardRow, ...]
    came: tuple[BoardRow, ...]


@dataclass(frozen=True)
class _KeptRows:
    digest: str  # of the rows' columns (`_bucket_digests`) and the split's flags, when they were read
    buckets: dict[int, str]  # the digest of each bucket's rows
    stamped: dict[int, dict[int, tuple[tuple, BoardRow]]]  # per bucket, per submission: `_row_stamp`, its row
    by_id: dict[int, BoardRow]  # the board's rows (`combine_runs`) by submission, in id order
    changes: tuple[RowsChange, ...] = ()  # the last changes that led here, oldest first
    seen: _Seen | None = None  # PostgreSQL: what the read of the change log they were last checked by saw

    @property
    def rows(self) -> list[BoardRow]:
        return list(self.by_id.values())


_local_rows: OrderedDict[int, _KeptRows] = OrderedDict()


class _Digest(Aggregate):
    """The MD5 of the texts of a query's rows joined, each row's columns as one text that no other values make. On
    PostgreSQL the row's record text (values with separators or quotes quoted, NULL empty where "" is quoted), in the
    order of `order`; on SQLite each column's text after its length (a NULL has none: "" where "" is "0:"), in its
    scan order (another order than last time reads as a change: it costs a rebuild, never a stale board)."""

    function = "MD5"
    name = "Digest"
    output_field = CharField()

    def __init__(self, columns: Sequence[str], order: str):
        super().__init__(F(order), *(F(c) for c in columns))

    def as_sql(self, compiler, connection, **extra_context):  # type: ignore[override]
        order, *columns = self.get_source_expressions()[:-1]  # then the aggregate's filter (none)
        compiled = [compiler.compile(column) for column in columns]
        params = [p for _, column_params in compiled for p in column_params]
        if connection.vendor == "postgresql":
            order_sql, order_params = compiler.compile(order)
            text = f"ROW({', '.join(sql for sql, _ in compiled)})::text"
            return f"MD5(STRING_AGG({text}, ',' ORDER BY {order_sql}))", (*params, *order_params)
        parts = [f"COALESCE(LENGTH(CAST({sql} AS TEXT)) || ':' || CAST({sql} AS TEXT), '')" for sql, _ in compiled]
        params = [p for _, column_params in compiled for p in (*column_params, *column_params)]
        text = " || ';' || ".join(parts)
        return f"MD5(GROUP_CONCAT({text}, ','))", tuple(params)


def _bucket_digests(rows: QuerySet, columns: Sequence[str]) -> dict[int, str]:
    """Per bucket of `rows` (id modulo DIGEST_BUCKETS) that has any: what changes when any of its rows changes in one
    of `columns`, or one comes or goes (their number and the digest of their columns, `_Digest`), from one grouped
    query however many rows there are."""
    found = (rows.order_by().annotate(bucket=Mod("pk", DIGEST_BUCKETS)).values("bucket")
             .annotate(n=Count("pk"), digest=_Digest(columns, "pk")).values_list("bucket", "n", "digest"))
    return {int(bucket): f"{n}:{digest or ''}" for bucket, n, digest in found}


def _digest_of(buckets: Mapping[int, str]) -> str:
    return hashlib.md5(repr(sorted(buckets.items())).encode()).hexdigest()


def _as_read(columns: tuple) -> tuple:
    return columns


_STAMPED = tuple(_ROW_COLUMNS.index(c) for c in ("source", "score__scorer_version", "score__created_at"))


def _row_stamp(columns: tuple) -> tuple:
    """What a kept row holds of the columns it was made from (`_ROW_COLUMNS`, `_rows_kept`): 16 bytes that differ when
    they differ (their text is one for one with their values: ids, text, numbers and times), then the source, the
    score's scorer version and when it was made (`board_scores_by_version`). The columns themselves took ~1.2 KB a
    row, kept for every row of a large board (issue 34)."""
    digest = hashlib.blake2b(repr(columns).encode(), digest_size=16).digest()
    return (digest, *(sys.intern(v) if isinstance(v, str) else v for v in (columns[i] for i in _STAMPED)))


def _buckets_read(rows: QuerySet, columns: Sequence[str], buckets: Mapping[int, str], stamp: Callable[[tuple], Any]
                  ) -> tuple[dict[int, str], dict[int, dict[int, Any]]]:
    """The digest of each bucket of `rows` now, and the columns (the first: the id) of each row in the buckets whose
    digest differs from `buckets` (the digests before), per bucket, as `stamp` keeps them: one grouped aggregate, and
    one light query when any bucket changed. A bucket left empty is read as empty."""
    now = _bucket_digests(rows, columns)  # read before the rows: a change in between is read at the next read
    changed = {b for b in now.keys() | buckets.keys() if now.get(b) != buckets.get(b)}
    read: dict[int, dict[int, Any]] = {b: {} for b in changed}
    if changed:
        query = rows.order_by() if len(changed) == len(now) else \
            rows.order_by().annotate(bucket=Mod("pk", DIGEST_BUCKETS)).filter(bucket__in=sorted(changed))
        for found in query.values_list(*columns):
            read.setdefault(found[0] % DIGEST_BUCKETS, {})[found[0]] = stamp(found)
    return now, read


def _items_read(rows: QuerySet, columns: Sequence[str], items: Iterable[int],
                stamped: Mapping[int, Mapping[int, Any]], stamp: Callable[[tuple], Any]) -> dict[int, dict[int, Any]]:
    """The columns of each row of the buckets that `items` (ids of `rows`' model) fall in, per bucket, as
    `_buckets_read` reads them, from those rows alone: the other rows of those buckets as `stamped` (per bucket, per
    id: their columns first) holds them; an item no longer in `rows` is left out."""
    items = sorted(set(items))
    read: dict[int, dict[int, Any]] = {b: {} for b in {pk % DIGEST_BUCKETS for pk in items}}
    for b, held in read.items():
        held.update((pk, entry[0]) for pk, entry in stamped.get(b, {}).items() if pk not in items)
    for found in rows.order_by().filter(pk__in=items).values_list(*columns):
        read[found[0] % DIGEST_BUCKETS][found[0]] = stamp(found)
    return read


@dataclass(frozen=True)
class _Seen:
    """What a read of the board-change log saw (PostgreSQL): its snapshot's xmin, xmax and in-progress transactions,
    and the reading transaction's own id with the last change of its own it saw. A later read takes as new the
    changes of transactions that read could not see (at or above its xmax, or in progress then), the changes its own
    transaction made since, and every change of the later read's own transaction when it is another."""

    xmin: int
    xmax: int
    running: tuple[int, ...]
    own: int | None
    own_last: int


_LOG, _HORIZON = BoardChange._meta.db_table, BoardChangeHorizon._meta.db_table
_CHANGES_SQL = (
    "WITH now AS (SELECT pg_current_snapshot() AS snapshot, pg_current_xact_id_if_assigned()::text::bigint AS own) "
    "SELECT pg_snapshot_xmin(snapshot)::text::bigint, pg_snapshot_xmax(snapshot)::text::bigint, "
    "ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(snapshot) AS x), own, "
    f"(SELECT COALESCE(MAX(id), 0) FROM {_LOG} WHERE split_id = %(split)s AND kind = %(kind)s AND xid = own), "
    f"(SELECT COALESCE(MAX(below), 0) FROM {_HORIZON}), "
    f"CASE WHEN %(since)s THEN ARRAY(SELECT DISTINCT item_id FROM {_LOG} WHERE split_id = %(split)s "
    "AND kind = %(kind)s AND xid >= %(xmin)s AND CASE WHEN xid = own THEN own IS DISTINCT FROM %(own)s::bigint "
    "OR id > %(own_last)s WHEN xid = %(own)s::bigint THEN id > %(own_last)s "
    "ELSE xid >= %(xmax)s OR xid = ANY(%(running)s::bigint[]) END) END FROM now")


def _changes_logged(split_id: int, kind: int, since: _Seen | None) -> tuple[_Seen | None, frozenset[int] | None]:
    """On PostgreSQL, whose triggers log every write to a board's rows and comparisons (BoardChange), in one query:
    what this read sees (`_Seen`), and the split's items of `kind` that transactions unseen by the read `since` wrote.
    (None, None) on another database; the items None when there is no `since` or the changes since it may have been
    pruned (BoardChangeHorizon): the caller reads the digest instead."""
    if connection.vendor != "postgresql":
        return None, None
    with connection.cursor() as cursor:
        cursor.execute(_CHANGES_SQL, {
            "split": split_id, "kind": kind, "since": since is not None, "xmin": since.xmin if since else 0,
            "xmax": since.xmax if since else 0,
            "running": list(since.running) if since else [], "own": since.own if since else None,
            "own_last": since.own_last if since else 0})
        xmin, xmax, running, own, own_last, below, items = cursor.fetchone()
    seen = _Seen(xmin, xmax, tuple(running), own, own_last)
    return seen, frozenset(items) if since is not None and since.xmin >= below and items is not None else None


def _read_since(split_id: int, kind: int, rows: QuerySet, columns: Sequence[str],
                held: _KeptRows | _KeptPairs | None, stamps: Mapping[int, Mapping[int, Any]], size: int,
                stamp: Callable[[tuple], Any] = _as_read
                ) -> tuple[_Seen | None, frozenset[int], dict[int, str], dict[int, dict[int, Any]], str]:
    """What changed in `rows` (a board's rows or comparisons, `kind`) since `held` was read: what this read saw
    (`_changes_logged`), the items the log names (empty where the digest was read), the buckets' digests, the columns
    of the buckets read (`_items_read` or `_buckets_read`; `stamps`: the held items' columns first, per bucket), and
    a digest of them: the log's, chained to the held one, or the buckets'. From the log on PostgreSQL while `held` was
    checked after its horizon and the change is under a quarter of its `size` items; else from the digest."""
    seen, logged = _changes_logged(split_id, kind, held.seen if held is not None else None)
    if held is not None and logged is not None and len(logged) <= size // 4 + DIGEST_BUCKETS:
        read = _items_read(rows, columns, logged, stamps, stamp)
        digest = hashlib.md5(repr((held.digest, seen, sorted(logged))).encode()).hexdigest()
        # The buckets read lose their digest, so a later read of the digest reads them whole.
        return seen, logged, {b: d for b, d in held.buckets.items() if b not in read}, read, digest
    buckets, read = _buckets_read(rows, columns, held.buckets if held is not None else {}, stamp)
    return seen, frozenset(), buckets, read, _digest_of(buckets)


def board_submissions(split_id: int | OuterRef) -> QuerySet[Submission]:
    """The submissions on a split's board: scored, with a score, and shown now (`on_boards`)."""
    return on_boards(Submission.objects.filter(split_id=split_id, status=Submission.Status.SCORED,
                                               score__isnull=False))


def _board_figures(split_id: int) -> tuple[bool, bool, str, tuple]:
    """What a board's rows are read under: whether the split hides its ground truth, whether its phase holds uploads'
    results back now (`on_boards`), the benchmark's headline key and its readings."""
    split = Split.objects.filter(pk=split_id).select_related("benchmark", "phase").first()
    if split is None:
        return False, False, "overall", ()
    waiting = split.phase is not None and split.phase.results_waiting()
    slug = split.benchmark.slug
    return split.hidden_ground_truth, waiting, headline_key(slug), benchmark_readings(slug)


def board_rows_current(*, split_id: int) -> list[BoardRow]:
    """The board's rows under the headline reading and the current scores: what `_load_rows(split_id)` returns,
    from this process's rows of the split while the digest of their columns is unchanged (one aggregate query),
    else those whose columns are unchanged (one light query) and the others built anew (`_row`)."""
    return _rows_kept(split_id).rows


def _rows_kept(split_id: int) -> _KeptRows:
    hidden, waiting, headline, readings = _board_figures(split_id)
    flags = f"{hidden}:{waiting}"
    with _local_lock:
        held = _local_rows.get(split_id)
    if held is not None and not held.digest.startswith(f"{flags}:"):
        held = None  # the split's flags changed: every row anew
    # The rows the log names are built again whatever their columns say (a write may change one the stamp has not).
    seen, logged, buckets, read, digest = _read_since(split_id, BoardChange.Kind.ROW, board_submissions(split_id),
                                                      _ROW_COLUMNS, held, held.stamped if held is not None else {},
                                                      len(held.by_id) if held is not None else 0, _row_stamp)
    digest = f"{flags}:{digest}"
    if held is not None and (held.digest == digest or not read):
        held = replace(held, seen=seen)
        with _local_lock:
            _local_rows[split_id] = held
            _local_rows.move_to_end(split_id)
        return held
    before = held.stamped if held is not None else {}
    stale = [pk for b, stamps in read.items() for pk, stamp in stamps.items()
             if pk in logged or before.get(b, {}).get(pk, (None,))[0] != stamp]
    built = _rows_built(stale, headline, readings, hidden) if stale else {}
    for pk in logged & built.keys():
        if (old := before.get(pk % DIGEST_BUCKETS, {}).get(pk)) is not None and old[1] == built[pk]:
            built[pk] = old[1]  # read again, the same: the row it was (no change for the views to follow)
    # The buckets read: each row built again where its columns differ, else kept. A row scored away between the two
    # queries is left out; its bucket's digest differs at the next read.
    stamped = {b: rows for b, rows in before.items() if b not in read}
    for b, stamps in read.items():
        kept = {pk: (stamp, built[pk]) if pk in built else before[b][pk] for pk, stamp in stamps.items()
                if pk in built or before.get(b, {}).get(pk, (None,))[0] == stamp}
        if kept:
            stamped[b] = kept
    gone = [row for b in read for pk, (_, row) in before.get(b, {}).items()
            if stamped.get(b, {}).get(pk, (None, None))[1] is not row]
    came = [row for b in read for pk, (_, row) in stamped.get(b, {}).items()
            if before.get(b, {}).get(pk, (None, None))[1] is not row]
    if held is not None and not gone and not came and all(stamped.get(b, {}) == before.get(b, {}) for b in read):
        digest = held.digest  # read again, the same (another digest's form, or a write that changed nothing shown)
    if held is not None and not any(row.run_set and row.source == "scored" for row in (*gone, *came)):
        # No mean of runs among them: the board's rows are the kept ones with these out and in, in id order.
        by_id, last = dict(held.by_id), max(held.by_id, default=0)
        staying = {row.submission_id for row in came}
        for row in gone:
            if row.submission_id not in staying:
                del by_id[row.submission_id]
        for row in came:
            by_id[row.submission_id] = row  # in its place when it was there, else last
        if any(row.submission_id < last and row.submission_id not in held.by_id for row in came):
            by_id = dict(sorted(by_id.items()))
        change = RowsChange(held.digest, digest, tuple(gone), tuple(came))
    else:
        by_id = _combined(stamped, held)
        change = RowsChange(held.digest, digest, *_rows_differing(held.by_id, by_id)) if held is not None else None
    changes = () if held is None else held.changes if digest == held.digest or change is None else \
        (*held.changes, change)[-CHANGES_KEPT:]
    made = _KeptRows(digest, buckets, stamped, by_id, changes, seen)
    with _local_lock:
        _local_rows[split_id] = made
        _local_rows.move_to_end(split_id)
        while sum(len(r.by_id) for r in _local_rows.values()) > LOCAL_ROWS_MAX and len(_local_rows) > 1:
            _local_rows.popitem(last=False)
    return made


def _rows_built(ids: Sequence[int], headline: str, readings: tuple, hidden: bool) -> dict[int, BoardRow]:
    """The rows of these submissions, built anew (`_row`), ROWS_BUILT_AT_ONCE at a time: a score read with its JSON
    is some 45-70 KB in memory (EPIC), and the first read of a 2,000-row board held all of them at once, a ~90 MiB
    peak that the process kept (issue 34); 250 at a time, 17 MiB above what the rows keep; 100, 9 (the cold build's
    time the same within this machine's noise). The scores' other readings are not read (a row under the headline's
    shows none of them). Their scores are read on their own: a submission read with its score (select_related) and
    the score holding its submission back are a reference cycle, and 2,000 of them (some 184,000 objects with their
    figures) were left to the garbage collector's full pass, some 100-175 ms inside a later request."""
    built: dict[int, BoardRow] = {}
    ids = sorted(ids)
    for start in range(0, len(ids), ROWS_BUILT_AT_ONCE):
        part = ids[start:start + ROWS_BUILT_AT_ONCE]
        scores = {score.submission_id: score for score in Score.objects.filter(submission_id__in=part).defer("readings")}
        built.update((sub.pk, _row(sub, headline, readings=readings, hidden=hidden, score=scores[sub.pk]))
                     for sub in Submission.objects.filter(pk__in=part).select_related("model_entry") if sub.pk in scores)
    return built


def _combined(stamped: Mapping[int, Mapping[int, tuple[tuple, BoardRow]]], held: _KeptRows | None
              ) -> dict[int, BoardRow]:
    """The board's rows (`combine_runs`) by submission, in id order; a mean of runs made again with the same figures
    is the row `held` kept (only rows that differ went and came)."""
    rows = combine_runs([row for _, (_, row) in sorted(pk_row for by_pk in stamped.values()
                                                       for pk_row in by_pk.items())])
    kept = held.by_id if held is not None else {}
    return {row.submission_id: old if (old := kept.get(row.submission_id)) is not None and old == row else row
            for row in rows}


def _rows_differing(before: Mapping[int, BoardRow], now: Mapping[int, BoardRow]
                    ) -> tuple[tuple[BoardRow, ...], tuple[BoardRow, ...]]:
    """The rows of `before` not in `now`, and those of `now` not in `before` (a row is itself, not its equal)."""
    return (tuple(row for sid, row in before.items() if now.get(sid) is not row),
            tuple(row for sid, row in now.items() if before.get(sid) is not row))


def _load_rows(split_id: int, reading: str = "", scorer: str = "") -> list[BoardRow]:
    """The board's rows: scored public submissions (a private or withdrawn one is on no board, nor an upload whose phase shows results at its close before it closes), with their figures
    under the reading asked for ("": the headline's); with `scorer`, the scores made under that scorer version (the
    current one or one a re-score replaced: a submission with neither is not on that board; a paper's reported rows
    are on every version's board, as the paper gave them)."""
    subs = board_submissions(split_id).select_related("model_entry", "score").order_by("id")
    hidden, _, headline, readings = _board_figures(split_id)
    if scorer:
        return combine_runs([_row(s, headline, reading=reading, readings=readings, hidden=hidden, score=score)
                             for s, score in scores_under_version(subs, scorer)])
    # Repeated runs of one variant (same model entry and run label) are one row: their mean, spread and interval.
    return combine_runs([_row(s, headline, reading=reading, readings=readings, hidden=hidden) for s in subs])


def scores_under_version(subs: Iterable[Submission], scorer: str
                         ) -> list[tuple[Submission, Score | ScoreVersion]]:
    """Each submission with its score under scorer version `scorer`: the current one when it bears it, else the
    newest score a re-score replaced that did; a reported row with its own; the others left out."""
    subs = list(subs)
    kept: dict[int, ScoreVersion] = {}
    for old in ScoreVersion.objects.filter(submission__in=[s.pk for s in subs], scorer_version=scorer).order_by(
            "submission_id", "superseded_at", "id"):
        kept[old.submission_id] = old  # the newest wins
    out: list[tuple[Submission, Score | ScoreVersion]] = []
    for sub in subs:
        if sub.source == Submission.Source.REPORTED or sub.score.scorer_version == scorer:
            out.append((sub, sub.score))
        elif sub.pk in kept:
            out.append((sub, kept[sub.pk]))
    return out


def benchmark_readings(benchmark_slug: str) -> tuple:
    """The readings a benchmark's plugin scores every upload under, the headline's first (none: one reading)."""
    try:
        return plugin_for(benchmark_slug).readings
    except UnknownBenchmark:
        return ()


def _load_pairs(split_id: int) -> dict[frozenset[int], PairSignificance]:
    rows = BoardComparison.objects.filter(split_id=split_id).values_list(*_PAIR_COLUMNS[1:])
    return {frozenset((a, b)): PairSignificance(a, b, p, n) for a, b, p, n in rows}


# The board's stored comparisons, kept in this process per split like its rows: the columns of those in the buckets
# whose digest changed read again (a comparison stored or recomputed since), the others kept.
_PAIR_COLUMNS = ("pk", "a_id", "b_id", "p_value", "shared_units")


@dataclass(frozen=True)
class _KeptPairs:
    digest: str
    buckets: dict[int, str]
    stamps: dict[int, dict[int, tuple]]  # per bucket, per comparison: its columns
    pairs: dict[frozenset[int], PairSignificance]  # never changed in place: a change makes a new one
    seen: _Seen | None = None  # PostgreSQL: what the read of the change log they were last checked by saw


_local_pairs: OrderedDict[int, _KeptPairs] = OrderedDict()


def _pairs_kept(split_id: int) -> tuple[str, dict[frozenset[int], PairSignificance]]:
    with _local_lock:
        held = _local_pairs.get(split_id)
    seen, _, buckets, read, digest = _read_since(
        split_id, BoardChange.Kind.PAIR, BoardComparison.objects.filter(split_id=split_id), _PAIR_COLUMNS, held,
        {b: {pk: (stamp,) for pk, stamp in by_pk.items()} for b, by_pk in held.stamps.items()} if held is not None else {},
        len(held.pairs) if held is not None else 0)
    if held is not None and all(read[b] == held.stamps.get(b, {}) for b in read):
        digest = held.digest  # read again, the same (none read, another digest's form, or a write that changed none)
    if held is not None and held.digest == digest:
        with _local_lock:
            _local_pairs[split_id] = replace(held, seen=seen)
            _local_pairs.move_to_end(split_id)
        return held.digest, held.pairs
    before = held.stamps if held is not None else {}
    pairs = dict(held.pairs) if held is not None else {}
    for b, stamps in read.items():
        for pk, (_, a, b_id, *_rest) in before.get(b, {}).items():
            if stamps.get(pk) != before[b][pk]:
                pairs.pop(frozenset((a, b_id)), None)
        for pk, (_, a, b_id, p, n) in stamps.items():
            if before.get(b, {}).get(pk) != stamps[pk]:
                pairs[frozenset((a, b_id))] = PairSignificance(a, b_id, p, n)
    stamped = {**{b: stamps for b, stamps in before.items() if b not in read},
               **{b: stamps for b, stamps in read.items() if stamps}}
    made = _KeptPairs(digest, buckets, stamped, pairs, seen)
    with _local_lock:
        _local_pairs[split_id] = made
        _local_pairs.move_to_end(split_id)
        while sum(len(p.pairs) for p in _local_pairs.values()) > LOCAL_ROWS_MAX and len(_local_pairs) > 1:
            _local_pairs.popitem(last=False)
    return made.digest, made.pairs


def board_pairs_stored(*, pairs: Iterable[tuple[int, int]]) -> dict[frozenset[int], PairSignificance]:
    """The stored comparisons among `pairs` (submission id pairs, either order)."""
    wanted = {frozenset(p) for p in pairs}
    ids = {i for p in wanted for i in p}
    rows = BoardComparison.objects.filter(a_id__in=ids, b_id__in=ids).values_list("a_id", "b_id", "p_value",
                                                                                  "shared_units")
    return {key: PairSignificance(a, b, p, n) for a, b, p, n in rows if (key := frozenset((a, b))) in wanted}


@dataclass(frozen=True)
class BoardData:
    cache_key: str
    rows: list[BoardRow]
    pairs: Mapping[frozenset[int], PairSignificance]  # shared with other reads: never changed in place
    # What the rows and pairs were read from (the digests of their columns), the same while they are unchanged
    # whatever the scoring cache version: the key of what this process makes from them (`board_derived`); "" for a
    # board under another reading or scorer version, whose data is not kept in the process.
    content_key: str = ""
    split_id: int = 0
    rows_digest: str = ""  # the rows' part of the content key
    pairs_digest: str = ""  # the comparisons' part
    changes: tuple[RowsChange, ...] = ()  # the rows' last changes, that led to these (`board_view_kept`)
    # Per bucket, per submission on the board: what it holds of its columns (`_row_stamp`) and its row, as read; None
    # for a board under another reading or scorer version.
    stamped: Mapping[int, Mapping[int, tuple[tuple, BoardRow]]] | None = None


def board_scores_by_version(*, split_id: int, data: BoardData | None = None
                            ) -> tuple[dict[str, tuple[int, Any]], frozenset[int]]:
    """Per scorer version of the current scores of the uploads on the board (not a paper's rows): how many, and when
    the first was made; and those uploads' submissions. From the columns read with the board's rows: `data`'s where
    the caller has the board as it is now (`stamped`: no query), else this process's kept rows (`_rows_kept`)."""
    stamped = data.stamped if data is not None and data.stamped is not None else _rows_kept(split_id).stamped
    found: dict[str, tuple[int, Any]] = {}
    uploads = []
    for by_pk in stamped.values():
        for pk, ((_, source, version, made), _) in by_pk.items():
            if source == Submission.Source.REPORTED:
                continue
            uploads.append(pk)
            n, first = found.get(version, (0, made))
            found[version] = (n + 1, min(first, made))
    return found, frozenset(uploads)


def board_data(*, split: Split, reading: str = "", scorer: str = "") -> BoardData:
    """The board's rows and pairs under a reading ("": the headline's) and a scorer version ("": the current
    scores), cached under the board key, the reading and the version. Under an older version there are no pairs."""
    key = board_cache_key(split_id=split.pk)
    if not reading and not scorer:
        # The board as it is now: this process's rows and stored comparisons, each checked by one aggregate query
        # (`_rows_kept`, `_pairs_kept`); nothing is pickled to or from the shared cache.
        rows, (pairs_digest, pairs) = _rows_kept(split.pk), _pairs_kept(split.pk)
        return BoardData(key, rows.rows, pairs, f"{split.pk}:{rows.digest}:{pairs_digest}", split.pk,
                         rows.digest, pairs_digest, rows.changes, rows.stamped)
    rows_key = f"{key}:reading:{reading}" if reading else key
    if scorer:
        rows_key = f"{rows_key}:scorer:{hashlib.sha256(scorer.encode()).hexdigest()[:16]}"
    cached = cache.get(rows_key)
    if cached is None:
        cached = (_load_rows(split.pk, reading, scorer), {} if scorer else _load_pairs(split.pk))
        cache.set(rows_key, cached, ROWS_TIMEOUT)
    return BoardData(key, cached[0], cached[1])


def board_data_pairs_add(data: BoardData, pairs: Mapping[frozenset[int], PairSignificance]) -> BoardData:
    """The board data with comparisons computed since it was read (the rows are unchanged: a comparison changes no
    figure; they are stored, so the next read finds them with the others). Not the data that was read: no content
    key; its rows' columns are those read with the rows (the scorer versions count them)."""
    return BoardData(data.cache_key, data.rows, {**data.pairs, **pairs}, stamped=data.stamped)


# What reads make from a board's data (its views: filtered, best entry per model, sorted, ranked, marked), kept in
# this process per split and `what` for the data's content key: a read after a score landed elsewhere (a new cache
# version, the same rows) makes none of it again, and what was made from rows since changed goes when the new is made
# (as whole responses: one per page). Bounded: the least recently used go first.
LOCAL_DERIVED_MAX = 64
_local_derived = _Slots(LOCAL_DERIVED_MAX)


def board_derived(data: BoardData, what: tuple, make: Callable[[], T]) -> T:
    """`make()`, made once per content of the board's data and `what` (e.g. a query's canonical form); made each
    time for data with no content key."""
    if not data.content_key:
        return make()
    found = _local_derived.get((data.split_id, *what), data.content_key)
    if found is _MISSING:
        found = make()
        _local_derived.put((data.split_id, *what), data.content_key, found)
    return found


# The views made from a board's data, kept in this process per split and query: a read after a change brings the view
# it kept up to date with the rows that went and came since (`leaderboard.core.board_kept`), in time that grows with
# the change, not with the board. Bounded: the least recently used go first.
LOCAL_VIEWS_MAX = 64
_local_views: OrderedDict[tuple, tuple[str, str, Any]] = OrderedDict()


def board_view_kept(data: BoardData, what: tuple, make: Callable[[], T],
                    update: Callable[[T, tuple[BoardRow, ...], tuple[BoardRow, ...]], T]) -> T:
    """What `make()` makes from the board's data for `what` (e.g. a query's canonical form): the one kept for this
    data, else the one kept for earlier data brought up to date by `update(kept, gone, came)` with each change of
    the rows since, in order (with none when only the comparisons changed), else made anew (`update` raised
    ValueError, or the changes since are no longer kept). Made each time for data with no content key."""
    if not data.content_key:
        return make()
    key = (data.split_id, *what)
    with _local_lock:
        held = _local_views.get(key)
    made: Any = None
    if held is not None:
        rows_digest, pairs_digest, kept = held
        if (rows_digest, pairs_digest) == (data.rows_digest, data.pairs_digest):
            with _local_lock:
                _local_views.move_to_end(key)
            return kept
        since = _changes_since(data.changes, rows_digest, data.rows_digest)
        try:
            if since is not None:
                made = kept
                for change in since or [None]:
                    made = update(made, change.gone if change else (), change.came if change else ())
        except ValueError:
            made = None
    if made is None:
        made = make()
    with _local_lock:
        _local_views[key] = (data.rows_digest, data.pairs_digest, made)
        _local_views.move_to_end(key)
        while len(_local_views) > LOCAL_VIEWS_MAX:
            _local_views.popitem(last=False)
    return made


def _changes_since(changes: Sequence[RowsChange], start: str, end: str) -> list[RowsChange] | None:
    """The changes that lead from rows of digest `start` to rows of digest `end` ([]: the same), or None when they
    are not all kept."""
    if start == end:
        return []
    first = next((i for i, change in enumerate(changes) if change.before == start), None)
    if first is None:
        return None
    since = list(changes[first:])
    chained = all(a.after == b.before for a, b in zip(since, since[1:]))
    return since if chained and since[-1].after == end else None


def board_has_kind(*, split_id: int, kind: str) -> bool:
    """Whether the board shows a row of a model of this kind (one indexed query, however many rows it has)."""
    return board_submissions(split_id).filter(model_entry__kind=kind).exists()


def model_submissions(*, entry: ModelEntry) -> QuerySet[Submission]:
    return (
        on_boards(Submission.objects.filter(model_entry=entry, status=Submission.Status.SCORED, score__isnull=False))
        .select_related("split__benchmark", "score")
        .order_by("split__benchmark__order", "split__name", "-id")
    )


def sample_detail_keys(*, user: AbstractBaseUser | None, split: Split) -> frozenset[str] | None:
    """The keys of a sample's details and components this viewer may see on the split (scoring.access decides).
    The drill-down and its overlay ask."""
    return access.sample_detail_keys(split=split, user=user)


def sample_scores(*, submission: Submission, task: str = "", outcome: str = "") -> QuerySet[SampleScore]:
    rows = SampleScore.objects.filter(submission=submission)
    if task:
        rows = rows.filter(task=task)
    if outcome:
        rows = rows.filter(outcome=outcome)
    return rows.order_by("index")


@dataclass(frozen=True)
class SampleFacets:
    """A submission's per-sample rows counted per (task, outcome): the drill-down's filter choices and the size of
    each filtered list, from one pass over the rows."""

    counts: Mapping[tuple[str, str], int]

    @property
    def tasks(self) -> list[str]:
        return sorted({t for t, _ in self.counts if t})

    @property
    def outcomes(self) -> list[str]:
        return sorted({o for _, o in self.counts if o})

    def count(self, *, task: str = "", outcome: str = "") -> int:
        """The rows `sample_scores(task=, outcome=)` lists."""
        return sum(n for (t, o), n in self.counts.items() if (not task or t == task) and (not outcome or o == outcome))


def sample_facets(*, submission: Submission) -> SampleFacets:
    """One grouped query: a submission's rows are read once for the filters' choices and the page count (three
    reads of every row before: two DISTINCTs and the paginator's COUNT; some 6,700 heap pages each for EPIC)."""
    # order_by(): the model's default ordering (submission, index) would otherwise group per row.
    rows = (SampleScore.objects.filter(submission=submission).order_by().values_list("task", "outcome")
            .annotate(n=Count("id")))
    return SampleFacets(counts={(task, outcome): n for task, outcome, n in rows})


def analysis_samples(*, submission_ids: Sequence[int], truth_keys: Sequence[str] = (),
                     detail_keys: frozenset[str] | None = None) -> dict[int, list[SampleRow]]:
    """The per-sample rows the hub scored for these submissions, each in split order, with the named keys of each
    sample's ground truth (read one by one, so a large ground truth, e.g. masks, is never loaded). `detail_keys`:
    only these keys of details and components (None: all; scoring.core.disclosure)."""
    by_submission: dict[int, list[SampleRow]] = {i: [] for i in submission_ids}
    truth_fields = tuple(f"sample__ground_truth__{k}" for k in truth_keys)
    fields = ("submission_id", "key", "task", "score", "outcome", "invalid", "components", "details",
              "sample__category", "sample__group", *truth_fields)
    for sub_id, key, task, score, outcome, invalid, components, details, category, group, *truth in (
        SampleScore.objects.filter(submission_id__in=list(by_submission)).order_by("submission_id", "index")
        .values_list(*fields).iterator(chunk_size=2000)
    ):
        by_submission[sub_id].append(SampleRow(
            key=key, task=task, category=category or "", group=group or "", score=score, outcome=outcome,
            invalid=invalid, components=disclosed(components if isinstance(components, dict) else {}, detail_keys),
            details=disclosed(details if isinstance(details, dict) else {}, detail_keys),
            truth=dict(zip(truth_keys, truth))))
    return by_submission


def analysis_labels(*, rows: Sequence[BoardRow]) -> list[tuple[BoardRow, str]]:
    """The scored rows (reported rows have no per-sample data) in order, each with what a figure calls it: the
    model name, "(thinking)" when it thinks; a second entry of the same model gets its id. Unique."""
    out: list[tuple[BoardRow, str]] = []
    seen: set[str] = set()
    for r in rows:
        if r.source != "scored":
            continue
        label = r.model_name + (" (thinking)" if r.thinking == "yes" else "")
        if label in seen:
            label = f"{label} #{r.submission_id}"
        seen.add(label)
        out.append((r, label))
    return out


def analysis_models(*, rows: Sequence[BoardRow], truth_keys: Sequence[str] = (),
                    detail_keys: frozenset[str] | None = None) -> list[ModelSamples]:
    """The per-sample rows the hub scored for the given board rows (reported rows have none and are left out), in
    the rows' order, for the Analysis tab (`analysis_samples`), labelled as `analysis_labels`."""
    labelled = analysis_labels(rows=rows)
    by_submission = analysis_samples(submission_ids=[r.submission_id for r, _ in labelled], truth_keys=truth_keys,
                                     detail_keys=detail_keys)
    return [ModelSamples(label=label, model_name=r.model_name, kind=r.kind, thinking=r.thinking,
                         submission_id=r.submission_id, samples=tuple(by_submission[r.submission_id]))
            for r, label in labelled]


def analysis_summaries_stored(*, submission_ids: Sequence[int], disclosure: str,
                              version: str) -> dict[int, dict[str, Any]]:
    """The stored Analysis-tab summaries of these submissions under this disclosure and version (one query);
    a submission with none, or with one of another version, is not in the answer."""
    return dict(AnalysisSummary.objects.filter(submission_id__in=list(submission_ids), disclosure=disclosure,
                                               version=version).values_list("submission_id", "summary"))
