"""Who may import whom, and who may name a benchmark, checked on the source (ast), so the layout stays what
docs/architecture.md and docs/adding-a-benchmark.md say:

- no import cycle between the project's modules (tests and migrations aside);
- apps depend one way: accounts (users, roles, token auth) depends on no other app, scoring on accounts only;
  leaderboard, annotation, simulator and notifications on scoring and accounts only; evaluations (the hub's runs) on
  scoring, simulator and accounts; config (settings, URLs, ASGI) puts them together;
- no star imports, no private name (`_x`) imported from another module, and no project import inside a function
  except in an `AppConfig.ready()` (Django's place for start-up wiring);
- no file outside a benchmark's own folders (scoring/benchmarks/<b>/, templates/benchmarks/<b>/,
  static/benchmarks/<b>/) names it: no import of its package, no string of its slug, title or paths (MAY_NAME holds
  the exceptions and why).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "accounts", "scoring", "leaderboard", "annotation", "simulator", "notifications",
            "evaluations", "devicelab")
MAY_IMPORT = {
    "accounts": {"accounts"},
    "scoring": {"scoring", "accounts"},  # accounts.roles, accounts.auth
    "leaderboard": {"leaderboard", "scoring", "accounts"},
    "annotation": {"annotation", "scoring", "accounts"},
    "simulator": {"simulator", "scoring", "accounts"},
    "notifications": {"notifications", "scoring", "accounts"},  # hears scoring's signals; nothing imports it
    # the hub's evaluation runs: at the leaderboard's layer; they may play VGE through the simulator's agent API
    "evaluations": {"evaluations", "scoring", "simulator", "accounts"},
    # device authoring sits above both: photos and masks from annotation, devices, tasks and play from simulator
    "devicelab": {"devicelab", "annotation", "simulator", "scoring", "accounts"},
    "config": set(PACKAGES),
}


@dataclass
class Module:
    name: str
    path: Path
    imports: set[str] = field(default_factory=set)
    private: list[str] = field(default_factory=list)  # "line: name" of private names imported from elsewhere
    stars: list[int] = field(default_factory=list)
    in_functions: list[str] = field(default_factory=list)  # "line: statement" outside AppConfig.ready


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _resolve(target: str, known: dict[str, Path]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _function_imports(tree: ast.AST) -> list[ast.stmt]:
    """Import statements inside functions, except in an AppConfig's ready()."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != "ready":
            found += [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return found


def analyse(known: dict[str, Path]) -> dict[str, Module]:
    result = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = Module(name, path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, name, path.name == "__init__.py")
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
                if _resolve(base, known):
                    module.stars += [node.lineno for alias in node.names if alias.name == "*"]
                    module.private += [
                        f"{node.lineno}: {alias.name}" for alias in node.names
                        if alias.name.startswith("_") and f"{base}.{alias.name}" not in known
                    ]
            else:
                continue
            module.imports |= {t for t in map(lambda t: _resolve(t, known), targets) if t and t != name}
        module.in_functions = [
            f"{n.lineno}: {ast.unparse(n)}" for n in _function_imports(tree)
            if any(_resolve(t, known) for t in _statement_targets(n, name, path))
        ]
        result[name] = module
    return result


def _statement_targets(node: ast.stmt, module: str, path: Path) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = _absolute(node, module, path.name == "__init__.py")
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@cache
def modules() -> dict[str, Module]:
    """The project's modules analysed: once per test process, and when a test asks, not as the file is collected (every
    pytest run of `make test` and each of its xdist processes collects every file)."""
    return analyse(project_modules())


def test_the_graph_is_the_whole_project():
    assert {"scoring.pipeline", "scoring.benchmarks.plan.services.judgements", "annotation.review.services",
            "simulator.consumers", "leaderboard.board_views"} <= set(modules())
    assert "scoring.models" in modules()["scoring.benchmarks.plan.services.judgements"].imports


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules():
    assert cycles({name: module.imports for name, module in modules().items()}) == []


def test_apps_depend_one_way():
    wrong = sorted(
        f"{name} imports {target}" for name, module in modules().items() for target in module.imports
        if target.split(".")[0] not in MAY_IMPORT[name.split(".")[0]]
    )
    assert wrong == []


def test_no_star_imports_and_no_private_names_across_modules():
    assert [f"{m.name}:{line}" for m in modules().values() for line in m.stars] == []
    assert [f"{m.name}:{p}" for m in modules().values() for p in m.private] == []


def test_no_project_imports_inside_functions():
    assert [f"{m.name}:{s}" for m in modules().values() for s in m.in_functions] == []


# -- a benchmark is named inside its own package only (docs/adding-a-benchmark.md) --

# Who outside a benchmark's folders may name it: (file or folder, the benchmark packages it may name, why). The two
# apps built for one benchmark (their code, templates and scripts), and the registry's line per built-in benchmark
# (None: any benchmark).
MAY_NAME: tuple[tuple[str, tuple[str, ...] | None, str], ...] = (
    ("scoring/benchmarks/__init__.py", None, "the registry: one import per built-in benchmark in BUILT_IN"),
    *((folder, ("vge",), "VGE's device simulator: plays VGEBench's devices in the browser and the agent API")
      for folder in ("simulator", "templates/simulator", "static/simulator")),
    *((folder, ("epic",), "EPIC's annotation tool: masks and items under EPIC-Bench's taxonomy")
      for folder in ("annotation", "templates/annotation", "static/annotation")),
    *((folder, ("vge",), "VGE's device lab: authors VGEBench devices from photos, checked by VGE's core")
      for folder in ("devicelab", "templates/devicelab", "static/devicelab")),
)
# Not scanned: the migrations (history), the tests, the speed scripts and the docs.
NOT_SCANNED = ("migrations", "tests", "perf", "docs", "node_modules", "vendor")


@dataclass(frozen=True)
class BenchmarkNames:
    package: str  # the folder under scoring/benchmarks/
    slug: str
    title: str

    def owns(self, relative: Path) -> bool:
        """Whether a file lies in one of this benchmark's own folders."""
        return any(relative.is_relative_to(folder) for folder in (
            Path("scoring/benchmarks") / self.package, Path("templates/benchmarks") / self.package,
            Path("static/benchmarks") / self.package))

    def names_in_text(self, text: str) -> bool:
        return (self.slug in text or self.title in text or f"benchmarks/{self.package}/" in text
                or f"scoring.benchmarks.{self.package}." in text or text == f"scoring.benchmarks.{self.package}")


def built_in_benchmarks() -> list[BenchmarkNames]:
    from scoring.benchmarks import BUILT_IN

    found = []
    for plugin in BUILT_IN:
        package = plugin.scorer.split(":")[0].split(".")[2]  # scoring.benchmarks.<package>.scorer:score
        found.append(BenchmarkNames(package, plugin.slug, plugin.title))
    return found


def py_names(source: str, benchmark: BenchmarkNames) -> list[int]:
    """Lines of a Python file naming a benchmark in code: an import of its package, or a string constant (a
    docstring too) holding its slug, its title or its package path. Comments are not code."""
    tree = ast.parse(source)
    package = f"scoring.benchmarks.{benchmark.package}"
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            hit = any(a.name == package or a.name.startswith(package + ".") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            hit = (module == package or module.startswith(package + ".")
                   or (module == "scoring.benchmarks" and any(a.name == benchmark.package for a in node.names)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            hit = benchmark.names_in_text(node.value)
        else:
            continue
        if hit:
            lines.append(node.lineno)
    return sorted(set(lines))


def text_names(source: str, benchmark: BenchmarkNames) -> list[int]:
    """Lines of a template or a script naming a benchmark: its slug, its title or a path into its folders."""
    return [number for number, line in enumerate(source.splitlines(), 1) if benchmark.names_in_text(line)]


def scanned_files() -> list[Path]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    files += list((ROOT / "templates").rglob("*.html")) + list((ROOT / "static").rglob("*.js"))
    return sorted(p for p in files if not set(p.relative_to(ROOT).parts) & set(NOT_SCANNED))


def benchmark_namings(files: list[Path], benchmarks: list[BenchmarkNames], root: Path = ROOT) -> list[str]:
    """'path:line: names <slug>' for each place outside a benchmark's own folders that names it."""
    found = []
    for path in files:
        relative = path.relative_to(root)
        source = path.read_text(encoding="utf-8")
        for benchmark in benchmarks:
            if benchmark.owns(relative) or any(
                    relative.is_relative_to(place) and (packages is None or benchmark.package in packages)
                    for place, packages, _ in MAY_NAME):
                continue
            lines = py_names(source, benchmark) if path.suffix == ".py" else text_names(source, benchmark)
            found += [f"{relative}:{line}: names {benchmark.slug}" for line in lines]
    return found


def test_no_benchmark_named_outside_its_package():
    found = benchmark_namings(scanned_files(), built_in_benchmarks())
    print("\n".join(found))
    assert found == []


def test_the_benchmark_naming_scan_finds_namings(tmp_path):
    (tmp_path / "scoring").mkdir()
    (tmp_path / "scoring" / "generic.py").write_text(
        '"""Nothing about that benchmark here."""\n# epic-bench in a comment is no code\n'
        "from scoring.benchmarks.epic.core import fields\nLABEL = 'Scored as on EPIC-Bench'\n", encoding="utf-8")
    (tmp_path / "scoring" / "epic.html").write_text("<p>\n<img src=\"/static/benchmarks/epic/x.png\">\n",
                                                    encoding="utf-8")
    (tmp_path / "annotation").mkdir()
    (tmp_path / "annotation" / "tool.py").write_text("TITLE = 'EPIC-Bench'\nOTHER = 'vge-bench'\n", encoding="utf-8")
    files = sorted(tmp_path.rglob("*.*"))
    assert benchmark_namings(files, built_in_benchmarks(), root=tmp_path) == [
        "annotation/tool.py:2: names vge-bench",
        "scoring/epic.html:2: names epic-bench",
        "scoring/generic.py:3: names epic-bench",
        "scoring/generic.py:4: names epic-bench",
    ]
