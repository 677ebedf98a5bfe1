"""The purity probe itself must catch a module that imports Django (so its silence means something)."""
import os
import subprocess
import sys

from tests.test_core_purity import PROBE, ROOT


def test_probe_reports_a_module_that_imports_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "json", "django.utils.functional"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.stdout.strip() == "django.utils.functional"
