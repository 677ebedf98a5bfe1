"""The plugin contract: what a benchmark declares, once, so the site, the worker and the CLI can serve it.

A benchmark is a package under `scoring/benchmarks/` with its pure `core/` and a `plugin.py` that builds one
`BenchmarkPlugin`. Code that runs inside the site (the scorer, the pre-check, the URLs) is named by a dotted
target and imported on first use, so the registry and the CLI stay free of Django. Pure data, no Django.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from scoring.core.columns import BoardSpec
from scoring.core.contract import FileProblem, PrecheckReport, ScorerInput, ScoringResult
from scoring.core.published import PublishedTable

if TYPE_CHECKING:  # annotations only: a benchmark's command-line scoring starts without the Analysis tab's code
    from scoring.core.analysis import Analyses, AnalysisSummaries

Scorer = Callable[[ScorerInput], ScoringResult]
Precheck = Callable[[ScorerInput], "PrecheckReport | list[FileProblem]"]
Sniff = Callable[..., "str | None"]  # (head: bytes, options, *, complete: bool) -> message or None
SNIFF_BYTES = 64 * 1024  # the start of an upload a `Sniff` is given


def load_target(target: str) -> Any:
    """The object a 'package.module:name' target names (the module itself when there is no ':name')."""
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


# A summary's version is stored in a 200-character column (leaderboard.AnalysisSummary.version): a longer context stamp
# is kept as its digest (71 characters).
SUMMARY_STAMP_KEPT = 120

@dataclass(frozen=True)
class FormatSection:
    """A section of a benchmark's own on its format page (after the file's fields): a title, a paragraph, and a table
    (`head`, `rows`) or a block of code, or both. `key` names it on the page (`id="format-<key>"`)."""

    key: str
    title: str
    text: str = ""
    head: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    code: str = ""


@dataclass(frozen=True)
class FormatGuide:
    """What a prediction file of the benchmark looks like, for its format page (`/leaderboard/<slug>/format/`). Text,
    pairs and one dotted target; a benchmark that declares none gets this generic guide, so every benchmark has a
    format page."""

    summary: str = ("One JSON object per line (JSON Lines), one line per sample of the split, naming its sample by "
                    "the sample's key (the `key` of each line of the split's inputs).")
    file_types: tuple[str, ...] = ("JSON Lines (.jsonl)",)
    fields: tuple[tuple[str, str], ...] = (("key", "the sample's key, as in the split's inputs"),)
    example_lines: tuple[tuple[str, str], ...] = ()  # (what it shows, one line of a file)
    options: tuple[tuple[str, str], ...] = ()  # (upload option, what it does)
    coordinate_systems: tuple[tuple[str, str], ...] = ()  # (name, meaning)
    model_coordinates: tuple[tuple[str, str], ...] = ()  # (model family, the coordinate system it usually answers in)
    notes: tuple[str, ...] = ()
    # "module:function": a `SampleRecord` (keys, labels and inputs; never ground truth) -> the object of one line of
    # a file the scorer accepts for that sample; the format page offers a small example file of such lines.
    example_record: str = ""
    example_options: tuple[tuple[str, Any], ...] = ()  # the upload options the example file needs
    # What happens to the example file once uploaded, as the format page promises it ("scores (low)").
    example_outcome: str = "it passes the format check and scores (low)"
    # The field names a JSON line of the benchmark's predictions may hold ("x_*": every name starting "x_"): a line
    # the scorer refuses that holds an unknown name close to one of these is told so ("did you mean `images`?").
    line_keys: tuple[str, ...] = ()
    # Key sets (patterns as above) that mark a line as this benchmark's predictions, whatever else it holds: a file
    # refused on another benchmark's split whose lines all hold one is named as this benchmark's file.
    line_signatures: tuple[tuple[str, ...], ...] = ()
    # "module:function", () -> ((what, text), ...): the prompts this site uses with the benchmark (what models are
    # asked, which judge prompts verdicts are given under), read when the page is shown; site-side (may use Django).
    prompts: str = ""
    # "module:function", (records: Sequence[SampleRecord]) -> ((zip name, text), ...): files the split's inputs
    # download holds beside questions.jsonl (EPIC: the paper's prompts per sample and per task type). It is given the
    # samples' keys, labels and inputs only, never their ground truth (hidden splits too); pure.
    input_files: str = ""
    # Sections of the benchmark's own (VGE: the actions an agent sends, the feedback kinds, the agent API's quick start).
    sections: tuple[FormatSection, ...] = ()

    def example_function(self) -> Callable[[Any], Any] | None:
        return load_target(self.example_record) if self.example_record else None

    def prompts_function(self) -> Callable[[], Sequence[tuple[str, str]]] | None:
        return load_target(self.prompts) if self.prompts else None

    def input_files_function(self) -> Callable[[Sequence[Any]], Sequence[tuple[str, str]]] | None:
        return load_target(self.input_files) if self.input_files else None


class SampleDetails(Protocol):
    """A benchmark's typed reading of one sample's `SampleScore.details` (a frozen dataclass in its core): what its
    drill-down hook reads, instead of guessing keys of an untyped mapping."""

    @classmethod
    def from_details(cls, details: Mapping[str, Any]) -> "SampleDetails": ...


@dataclass(frozen=True)
class DrilldownSample:
    """One scored sample as the drill-down hands it to a benchmark's hooks. `details` is what this viewer may see
    (already disclosed), read through the plugin's `sample_details` type when it declares one (else the mapping).
    `ground_truth` is the sample's, for shapes only: a hook shows or draws it only when `ground_truth_visible`
    (scoring.access decided); `private_media_visible` says whether files under MEDIA_ROOT/private may be read."""

    details: Any
    outcome: str
    inputs: Mapping[str, Any]
    ground_truth: Any = None
    ground_truth_visible: bool = False
    private_media_visible: bool = False


SampleView = Callable[[DrilldownSample], Mapping[str, Any]]
SampleImage = Callable[[DrilldownSample], bytes]


@dataclass(frozen=True)
class Drilldown:
    """What the per-sample results page (`/submissions/<pk>/samples/`) shows of a benchmark beyond the generic row.
    Templates live under `templates/benchmarks/<b>/`; targets are site-side (may use Django)."""

    question_label: str = "Prompt"  # the label of what the model was asked
    question_keys: tuple[str, ...] = ()  # the inputs keys that hold it (the first set wins; a list is one per line)
    # "module:function", a `SampleView`: a `DrilldownSample` -> the fields `template` shows as `item.view`
    sample: str = ""
    template: str = ""  # included inside each sample's body (with `item`, `submission`, `show_gt`)
    # "module:function", (*, show_gt: bool) -> mapping: what `page_template` shows once above the samples, as
    # `drilldown_page`
    page: str = ""
    page_template: str = ""
    # "module:function", a `SampleImage`: a `DrilldownSample` -> PNG bytes, served at .../samples/<index>/overlay.png
    # (a 404 where the benchmark declares none)
    image: str = ""

    def sample_function(self) -> SampleView | None:
        return load_target(self.sample) if self.sample else None

    def page_function(self) -> Callable[..., Mapping[str, Any]] | None:
        return load_target(self.page) if self.page else None

    def image_function(self) -> SampleImage | None:
        return load_target(self.image) if self.image else None


@dataclass(frozen=True)
class BoardExtras:
    """What a board page shows above its table for a benchmark: site-side reads (may use Django) rendered by a
    template of the benchmark's own (`templates/benchmarks/<b>/...html`, given the mapping as `extras`)."""

    context: str = ""  # "module:function", (benchmark, split) -> mapping
    template: str = ""

    def context_function(self) -> Callable[[Any, Any], Mapping[str, Any]] | None:
        return load_target(self.context) if self.context else None


@dataclass(frozen=True)
class UploadOption:
    """A choice an upload makes for the benchmark's scorer, stored as `Submission.options[name]`. The upload form,
    the API (its `options` object) and the command-line client offer every plugin's options, by the same name."""

    name: str  # the key in the upload's options, the form's field name; the client's flag is --<name with dashes>
    label: str
    help: str  # names the benchmark: every benchmark's options are offered on the one upload form
    choices: tuple[tuple[str, str], ...]  # (value, what the form shows)
    default: str  # the choice meaning "not given": never sent by the client nor stored
    # A second client flag that picks the value by a name (EPIC: --family, the model family's usual coordinates);
    # the option's own flag wins over it.
    preset_flag: str = ""  # without the dashes, e.g. "family"
    preset_help: str = ""
    presets: tuple[tuple[str, str], ...] = ()  # (name, value)


@dataclass(frozen=True)
class PublicMedia:
    """Where the benchmark's importer puts public splits' images, for the sweep of stale public copies of hidden
    splits' images (scoring/stale_media.py, `prune_public_media`); site-side targets (may use Django)."""

    folder: str  # under MEDIA_ROOT/public/, e.g. "epic-bench"
    # "module:function", (hidden_names: set[str], splits: list[(name, version, hidden)]) -> (name -> bool): from
    # every media name (relative to MEDIA_ROOT) the samples of hidden splits hold and every split's name, version
    # and hiddenness, whether a file of the folder (its name relative to the folder) is a hidden split's image.
    hidden_copy: str
    # "module:function", () -> iterable of JSON values: other records whose strings name images of the
    # folder, kept while they do (PLAN: its open judgements, whose queue shows their images).
    references: str = ""
    references_name: str = ""  # who those records are, for the sweep's report ("the open PLAN judgements")
    references_action: str = ""  # what to do so they name the images no more ("decide them")


@dataclass(frozen=True)
class ScoringProtocol:
    """Which protocol a board's numbers use, said on its board page, in its API and JSON export and on its format
    page: a few short sentences of plain text (escaped where shown), the document that defines it, and what of it
    this site's settings decide (PLAN: the judges configured and the judge prompts' version). A benchmark that
    declares none gets no protocol line."""

    text: str = ""
    docs: str = ""  # the repository's document that defines the protocol, e.g. "docs/epic-scoring.md"
    # "module:function", () -> str: the part this site's settings decide, read when shown; site-side (may use Django)
    in_use: str = ""

    def in_use_function(self) -> Callable[[], str] | None:
        return load_target(self.in_use) if self.in_use else None

    def statement(self) -> str:
        """The whole protocol as one text: the plugin's sentences, then what this site's settings decide."""
        in_use = self.in_use_function()
        return " ".join(part for part in (self.text, in_use() if in_use else "") if part)


@dataclass(frozen=True)
class Reading:
    """One reading of the answers a benchmark scores every upload under. A plugin's `readings` lists them, the
    headline's own first (the figures that rank its board by default); each other one is a second figure set stored
    with the same score (`ScoringResult.readings[key]`) that the board, its API and exports show with
    `?reading=<key>`. The protocol line says which reading the numbers shown use."""

    key: str  # the board's ?reading= value (a slug)
    label: str  # a few words: "the toolkit's reading"
    description: str  # a sentence: what this reading does, said by the protocol line when its figures are shown
    # Scorer versions from before every reading was stored, whose headline figures were made under this reading:
    # they count as this reading's figures (and as no other's).
    legacy_versions: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkPlugin:
    slug: str  # the name `Benchmark.scorer` holds, e.g. "epic-bench"
    title: str
    scorer: str  # "module:function", a `Scorer`; runs in the worker (may use Django)
    board: BoardSpec
    # "module:name", the version the scorer stamps on a score it makes now: a string, or a function () -> str (PLAN:
    # its rules and the judge prompts the settings name); site-side. A submission whose score bears another version
    # is re-scored when a re-score starts (on a curator's page, `manage.py rescore`, or at deploy: docs/rescoring.md).
    # None declared: only a curator's forced re-score re-scores the benchmark's submissions.
    scorer_version: str = ""
    precheck: str = ""  # "module:function", a `Precheck`: the file read and matched to the split as the scorer does
    # it, with the upload's options, without scoring; returns a `PrecheckReport` (or a bare list of problems)
    # "module:function", a `Sniff`: from the first SNIFF_BYTES of an upload and its options, a message when the file
    # is plainly in a format the options do not read (EPIC: raw responses without the raw option); the upload is
    # then refused before it is stored, so it uses no quota.
    sniff: str = ""
    published: PublishedTable | None = None  # the paper's table in data/published/, shown as "reported" rows
    cli: str = ""  # a module with `main(argv) -> int`, run by `python -m scoring <slug>`; pure
    cli_help: str = ""
    urls: str = ""  # a Django URLconf module of the benchmark's own pages, mounted under /<url_prefix>/
    url_prefix: str = ""
    demo_command: str = ""  # the management command that makes its demo content (run by `make_demo`)
    analyses: str = ""  # "module:function", an `Analyses` (scoring.core.analysis): the Analysis tab's figures; pure
    analysis_truth_keys: tuple[str, ...] = ()  # ground-truth keys of each sample the figures need (`SampleRow.truth`)
    analysis_context: str = ""  # "module:function" (split) -> mapping: site-side reads for the figures (may use Django)
    # Whether those reads follow the board's rows alone: the same while its rows are the same submissions of the same
    # model entries (what an upload fixes when it is made, its options, may be read too). The site then keeps them
    # per process until the rows' submissions or entries change (leaderboard.services_analysis._site_reads).
    analysis_context_of_rows: bool = False
    # "module:NAME", an `AnalysisSummaries` (scoring.core.analysis): the figures in two steps, a summary per
    # submission (stored when its score lands, leaderboard.services_analysis) and figures combined from the board's
    # summaries, so a request reads no per-sample row. None: the figures read every entry's samples per request.
    analysis_summaries: str = ""
    # "module:function" (split, public: bool) -> mapping: what `summarise` reads besides a submission's samples
    # (site-side; `public` false on a split with hidden ground truth: nothing read from it). None: nothing.
    analysis_summary_context: str = ""
    # "module:function" (split) -> str: a cheap stamp of what that context depends on that may change while the
    # split stays (VGE: its board's human entries); a stored summary under another stamp is stale. None: "".
    analysis_summary_stamp: str = ""
    # Keys of the figures read from ground truth (true counts, answer hints, optimal costs): on a split with hidden
    # ground truth they are not computed, and the figures that are get no ground truth and no site-side reads.
    analysis_truth_figures: tuple[str, ...] = ()
    format: FormatGuide = FormatGuide()  # the format page's content
    # -- site hooks (upload options, media, admin) --
    upload_options: tuple[UploadOption, ...] = ()  # the choices an upload makes for this benchmark's scorer
    upload_hint: str = ""  # the upload page's few words (HTML) on the files it takes, e.g. "std_format (JSONL)"
    public_media: PublicMedia | None = None  # public splits' images, for the stale-media sweep
    # (link text, URL name taking the submission's id): the benchmark's own pages about one scored submission,
    # linked from the submission's page (PLAN: its verdicts and who decided them)
    submission_pages: tuple[tuple[str, str], ...] = ()
    # The package's own Django app (its AppConfig's dotted path), put in INSTALLED_APPS by the settings for the
    # built-in benchmarks (an EXTRA_BENCHMARKS one lists its app in the deployment's settings): Django then loads its
    # models (app label "scoring"), admin pages and checks, and finds its management commands.
    django_app: str = ""
    # What a non-curator may see of a scored sample (`SampleScore.details` and `.components`): the key names
    # allowed at any depth (scoring.core.disclosure). On a split with hidden ground truth only these, so a scorer
    # key is secret until listed here; the default shows nothing. On a public split: None, everything.
    hidden_split_detail_keys: frozenset[str] = frozenset()
    public_split_detail_keys: frozenset[str] | None = None
    # -- board hooks (drill-down, extras, headline) --
    # The key of the scorer's intervals that belong to the headline figure (the board's "overall" column).
    headline_key: str = "overall"
    board_extras: BoardExtras = BoardExtras()  # shown above the board's table
    drilldown: Drilldown = Drilldown()  # the per-sample results page and its image
    # "module:Class", a `SampleDetails` in its core: the typed reading of a sample's details its drill-down hooks get
    sample_details: str = ""
    # Which protocol the board's numbers use (e.g. EPIC's default reading or the toolkit's), named on the board, in
    # its API and JSON export and on the format page; the default names none.
    protocol: ScoringProtocol = ScoringProtocol()
    # The readings every upload is scored under, the headline's first (EPIC: the toolkit's, then the strict reading
    # of deviations B1 and B5); none: one reading, and the board takes no ?reading=.
    readings: tuple[Reading, ...] = ()
    # -- provenance hooks (docs/provenance.md) --
    # "module:function", (options: Mapping, model: str) -> Mapping: the protocol options a score is made under, as
    # its provenance states them (EPIC: the coordinate system and the raw or std_format reading; PLAN: the judge
    # model, the prompts' hash and the cascade; VGE: λ, feedback, perturbation, history and instruction). Site-side
    # where the site's settings decide part of it (PLAN); pure otherwise. None: the provenance states no options.
    provenance_options: str = ""
    # "module:function", a `Scorer` that needs nothing but the file and the split's samples (pure: no Django, no
    # database): what `python -m scoring verify` re-scores a file with off the site. None: verify on the site
    # (`python manage.py verify_provenance`), where the benchmark's own scorer reads what it needs.
    rescorer: str = ""
    # -- running a model (scoring.core.runner; `python -m scoring run`, the hub's evaluation runs) --
    # "module:NAME", a `scoring.core.runner.BenchmarkProtocol`: the paper's protocol as chat requests, the answers as
    # the benchmark's upload file; pure. None: the hub cannot run models on the benchmark.
    runner: str = ""
    # "module:function", (request JSON, images: list[bytes]) -> str | None: the local stand-in model's deterministic
    # reply to a request of this protocol, None for another's (scoring/standin.py); pure.
    standin: str = ""

    def runner_protocol(self) -> Any:
        return load_target(self.runner) if self.runner else None

    def standin_function(self) -> Callable[[Mapping[str, Any], list[bytes]], "str | None"] | None:
        return load_target(self.standin) if self.standin else None

    def reading(self, key: str) -> Reading | None:
        """The reading of this key; "" (or the first reading's key) names the headline's."""
        if not self.readings:
            return None
        return self.readings[0] if key in ("", self.readings[0].key) else next(
            (r for r in self.readings if r.key == key), None)

    def score_function(self) -> Scorer:
        return load_target(self.scorer)

    def rescore_function(self) -> Scorer | None:
        return load_target(self.rescorer) if self.rescorer else None

    def provenance_options_of(self, options: Mapping[str, Any], model: str) -> dict[str, Any]:
        """The protocol options of a score made with these upload options for this model (`provenance_options`)."""
        if not self.provenance_options:
            return {}
        return dict(load_target(self.provenance_options)(options, model))

    def current_scorer_version(self) -> str:
        """The version a score made now would bear ("" when the plugin declares none)."""
        if not self.scorer_version:
            return ""
        found = load_target(self.scorer_version)
        return str(found() if callable(found) else found)

    def precheck_function(self) -> Precheck | None:
        return load_target(self.precheck) if self.precheck else None

    def analyses_function(self) -> Analyses | None:
        return load_target(self.analyses) if self.analyses else None

    def analysis_context_function(self) -> Callable[[Any], Mapping[str, Any]] | None:
        return load_target(self.analysis_context) if self.analysis_context else None

    def analysis_summaries_spec(self) -> AnalysisSummaries | None:
        return load_target(self.analysis_summaries) if self.analysis_summaries else None

    def analysis_summary_context_of(self, split: Any, *, public: bool) -> Mapping[str, Any]:
        return load_target(self.analysis_summary_context)(split, public) if self.analysis_summary_context else {}

    def analysis_summary_version(self, split: Any) -> str:
        """The version a summary of `split` made now bears: the summaries' own, and the context's stamp."""
        spec = self.analysis_summaries_spec()
        stamp = load_target(self.analysis_summary_stamp)(split) if self.analysis_summary_stamp else ""
        if len(stamp) > SUMMARY_STAMP_KEPT:  # e.g. many human entries' ids: named by its digest, so it fits the column
            import hashlib  # here: OpenSSL's load is not every command's start-up

            stamp = "sha256:" + hashlib.sha256(stamp.encode()).hexdigest()
        return f"{spec.version if spec else ''}|{stamp}"

    def sniff_function(self) -> Sniff | None:
        return load_target(self.sniff) if self.sniff else None

    def sample_details_of(self, details: Mapping[str, Any]) -> Any:
        """A sample's details as the drill-down hooks read them: the plugin's typed reading, else the mapping."""
        if not self.sample_details:
            return details
        details_type: type[SampleDetails] = load_target(self.sample_details)
        return details_type.from_details(details)
