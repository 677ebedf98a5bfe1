"""Every module under a core/ package (an app's, or a benchmark package's), the benchmark registry and every
plugin import without Django, in a fresh interpreter with no settings: the CLI scores files that way."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("scoring", "leaderboard", "annotation", "simulator", "notifications", "devicelab")

PROBE = """
import importlib, sys
bad = []
for name in sys.argv[1:]:
    importlib.import_module(name)
    if any(m == "django" or m.startswith("django.") for m in sys.modules):
        bad.append(name)
        break
print("\\n".join(bad))
"""


def core_modules() -> list[str]:
    paths = [p for app in APPS for core in sorted((ROOT / app).rglob("core")) for p in sorted(core.rglob("*.py"))]
    paths += [ROOT / "scoring" / "benchmarks" / "__init__.py", *sorted((ROOT / "scoring" / "benchmarks").glob("*/plugin.py"))]
    modules = []
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


def test_there_are_core_modules_to_check():
    assert {
        "scoring.core", "scoring.core.stats", "scoring.benchmarks", "scoring.benchmarks.epic.core.scorer",
        "scoring.benchmarks.plan.core.engine", "scoring.benchmarks.vge.core.engine", "annotation.core",
        "notifications.core.signing",
    } <= set(core_modules())


def test_no_core_module_imports_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *core_modules()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"imports Django: {result.stdout.strip()}"
