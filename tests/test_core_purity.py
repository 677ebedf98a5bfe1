"""Every module under an app's core/ package imports without Django, in a fresh interpreter with no settings."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("scoring", "leaderboard", "annotation", "simulator")

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
    modules = []
    for app in APPS:
        for path in sorted((ROOT / app / "core").rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


def test_there_are_core_modules_to_check():
    assert {"scoring.core", "scoring.core.stats", "simulator.core", "annotation.core"} <= set(core_modules())


def test_no_core_module_imports_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *core_modules()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"imports Django: {result.stdout.strip()}"
