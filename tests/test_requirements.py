"""The project installs everything it imports: each third-party import is pinned in requirements.txt.

This is the fresh-clone check: a package installed by hand on a developer's machine would pass the other tests
there and fail on a new one; here it fails everywhere.
"""
import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.test_architecture import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = {*PACKAGES, "tests", "perf", "scripts"}  # the apps as the architecture test lists them


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.txt: '{line}' is not pinned with =="
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def imported_top_level_modules() -> set[str]:
    modules = set()
    for path in ROOT.rglob("*.py"):
        if any(part in {".venv", "var", "node_modules"} for part in path.parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    return modules


def test_every_third_party_import_is_pinned():
    distributions = packages_distributions()
    pins = pinned()
    missing = []
    for module in sorted(imported_top_level_modules()):
        if module in sys.stdlib_module_names or module in PROJECT_PACKAGES or module == "__future__":
            continue
        names = distributions.get(module)
        if not names:
            missing.append(f"{module} (not installed at all)")
            continue
        if not any(re.sub(r"[-_.]+", "-", n).lower() in pins for n in names):
            missing.append(f"{module} (from {', '.join(names)})")
    assert not missing, f"imported but not pinned in requirements.txt: {missing}"
