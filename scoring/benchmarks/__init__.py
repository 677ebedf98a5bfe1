"""The benchmark registry: one map from slug to plugin, asked by the CLI, the worker, the boards, the pre-check and
the exports. Adding a benchmark is one package under here and one line in `BUILT_IN` (docs/adding-a-benchmark.md).

Pure: importing it loads the plugins and their cores, never Django.
"""
from __future__ import annotations

from scoring.benchmarks.epic.plugin import PLUGIN as EPIC
from scoring.benchmarks.plan.plugin import PLUGIN as PLAN
from scoring.benchmarks.vge.plugin import PLUGIN as VGE
from scoring.core.columns import BoardSpec, overall_only
from scoring.core.plugin import BenchmarkPlugin, UploadOption, load_target

BUILT_IN: tuple[BenchmarkPlugin, ...] = (EPIC, PLAN, VGE)

_registry: dict[str, BenchmarkPlugin] = {plugin.slug: plugin for plugin in BUILT_IN}


class UnknownBenchmark(LookupError):
    pass


def plugin_for(slug: str) -> BenchmarkPlugin:
    try:
        return _registry[slug]
    except KeyError:
        raise UnknownBenchmark(
            f"No scorer for this benchmark yet ('{slug}'): the submission was stored but cannot be scored."
        ) from None


def board_for(slug: str) -> BoardSpec:
    """The board layout of a benchmark; one without a plugin gets a board with its overall column only."""
    plugin = _registry.get(slug)
    return plugin.board if plugin else overall_only(slug)


def plugins() -> tuple[BenchmarkPlugin, ...]:
    return tuple(_registry.values())


def upload_options() -> dict[str, UploadOption]:
    """Every benchmark's upload options by name, as the upload form, the API and the client offer them (the first
    plugin declaring a name wins)."""
    found: dict[str, UploadOption] = {}
    for plugin in _registry.values():
        for option in plugin.upload_options:
            found.setdefault(option.name, option)
    return found


def register(plugin: BenchmarkPlugin) -> BenchmarkPlugin | None:
    """Add (or replace) a plugin; returns the one it replaced, so a test can put it back."""
    previous = _registry.get(plugin.slug)
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
