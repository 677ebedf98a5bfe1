"""Every annotation.core module imports in a fresh interpreter without loading Django."""
import pkgutil
import subprocess
import sys
from pathlib import Path

import annotation.core


def test_annotation_core_modules_do_not_import_django():
    modules = [f"annotation.core.{m.name}" for m in pkgutil.iter_modules(annotation.core.__path__)]
    assert "annotation.core.segmentation" in modules
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('django' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""},
                            cwd=Path(__file__).resolve().parents[3])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
