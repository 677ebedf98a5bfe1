"""The benchmark registry: one map from slug to plugin, asked by the CLI, the worker, the boards, the pre-check and
the exports. Adding a benchmark is one package under here and one line in `BUILT_IN_MODULES`
(docs/adding-a-benchmark.md).

Pure: importing it loads no plugin and never Django. A built-in plugin's module (and its core) is imported when
the plugin is first asked for: `plugin_for` one benchmark imports that one only (a command scoring one benchmark
starts without the others' code), `plugins()` and `BUILT_IN` all of them.
"""
from __future__ import annotations

import importlib

from scoring.core.columns import BoardSpec, overall_only
from scoring.core.plugin import BenchmarkPlugin, UploadOption, load_target

# The built-in benchmarks, in board order: slug -> the module whose PLUGIN declares it (with that slug).
BUILT_IN_MODULES: dict[str, str] = {
    "epic-bench": "scoring.benchmarks.epic.plugin",
    "plan-bench": "scoring.benchmarks.plan.plugin",
    "vge-bench": "scoring.benchmarks.vge.plugin",
}

# None: a built-in benchmark whose plugin is not imported yet.
_registry: dict[str, BenchmarkPlugin | None] = dict.fromkeys(BUILT_IN_MODULES)


def _built_in(slug: str) -> BenchmarkPlugin:
    plugin = importlib.import_module(BUILT_IN_MODULES[slug]).PLUGIN
    if not isinstance(plugin, BenchmarkPlugin) or plugin.slug != slug:
        raise TypeError(f"{BUILT_IN_MODULES[slug]}.PLUGIN is not the plugin of '{slug}'")
    return plugin


def _loaded(slug: str) -> BenchmarkPlugin:
    """The registered plugin of a slug (KeyError if none), importing a built-in one on first use."""
    plugin = _registry[slug]
    if plugin is None:
        plugin = _registry[slug] = _built_in(slug)
    return plugin


def __getattr__(name: str) -> tuple[BenchmarkPlugin, ...]:
    """`BUILT_IN`: the built-in benchmarks' plugins (whatever is registered over them), all imported."""
    if name == "BUILT_IN":
        return tuple(_built_in(slug) for slug in BUILT_IN_MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownBenchmark(LookupError):
    pass


def plugin_for(slug: str) -> BenchmarkPlugin:
    try:
        return _loaded(slug)
    except KeyError:
        raise UnknownBenchmark(
            f"No scorer for this benchmark yet ('{slug}'): the submission was stored but cannot be scored."
        ) from None


def board_for(slug: str) -> BoardSpec:
    """The board layout of a benchmark; one without a plugin gets a board with its overall column only."""
    return _loaded(slug).board if slug in _registry else overall_only(slug)


def plugins() -> tuple[BenchmarkPlugin, ...]:
    return tuple(_loaded(slug) for slug in list(_registry))


def upload_options() -> dict[str, UploadOption]:
    """Every benchmark's upload options by name, as the upload form, the API and the client offer them (the first
    plugin declaring a name wins)."""
    found: dict[str, UploadOption] = {}
    for plugin in plugins():
        for option in plugin.upload_options:
            found.setdefault(option.name, option)
    return found


def register(plugin: BenchmarkPlugin) -> BenchmarkPlugin | None:
    """Add (or replace) a plugin; returns the one it replaced, so a test can put it back."""
    previous = _loaded(plugin.slug) if plugin.slug in _registry else None
    _registry[plugin.slug] = plugin
    return previous


def unregister(slug: str, *, restore: BenchmarkPlugin | None = None) -> None:
    _registry.pop(slug, None)
    if restore is not None:
        _registry[slug] = restore


def register_targets(targets: str) -> None:
    """Register the plugins named by a comma-separated list of 'module:NAME' targets (the EXTRA_BENCHMARKS
    setting), for benchmarks that live outside this package: a deployment's own, or the test suite's."""
    for target in filter(None, (part.strip() for part in targets.split(","))):
        plugin = load_target(target)
        if not isinstance(plugin, BenchmarkPlugin):
            raise TypeError(f"EXTRA_BENCHMARKS: {target} is a {type(plugin).__name__}, not a BenchmarkPlugin")
        register(plugin)
