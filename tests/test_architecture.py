"""Who may import whom, checked on the source (ast), so the layout stays what docs/architecture.md says:

- no import cycle between the project's modules (tests and migrations aside);
- apps depend one way: scoring depends on no other app; leaderboard, annotation and simulator depend on scoring
  only; config (settings, URLs, ASGI) puts them together;
- no star imports, no private name (`_x`) imported from another module, and no project import inside a function
  except in an `AppConfig.ready()` (Django's place for start-up wiring).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "scoring", "leaderboard", "annotation", "simulator")
MAY_IMPORT = {
    "scoring": {"scoring"},
    "leaderboard": {"leaderboard", "scoring", "config"},  # config.celery: the health check pings the broker
    "annotation": {"annotation", "scoring"},
    "simulator": {"simulator", "scoring"},
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


MODULES = analyse(project_modules())


def test_the_graph_is_the_whole_project():
    assert {"scoring.pipeline", "scoring.benchmarks.plan.services.judgements", "annotation.review.services",
            "simulator.consumers", "leaderboard.board_views"} <= set(MODULES)
    assert "scoring.models" in MODULES["scoring.benchmarks.plan.services.judgements"].imports


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules():
    assert cycles({name: module.imports for name, module in MODULES.items()}) == []


def test_apps_depend_one_way():
    wrong = sorted(
        f"{name} imports {target}" for name, module in MODULES.items() for target in module.imports
        if target.split(".")[0] not in MAY_IMPORT[name.split(".")[0]]
    )
    assert wrong == []


def test_no_star_imports_and_no_private_names_across_modules():
    assert [f"{m.name}:{line}" for m in MODULES.values() for line in m.stars] == []
    assert [f"{m.name}:{p}" for m in MODULES.values() for p in m.private] == []


def test_no_project_imports_inside_functions():
    assert [f"{m.name}:{s}" for m in MODULES.values() for s in m.in_functions] == []
