from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from PIL import Image

from scoring.benchmarks.plan.core.aggregate import summarise
from scoring.benchmarks.plan.core.cli import rows_of
from scoring.benchmarks.plan.core.demo import demo_items, oracle_predictions, random_predictions
from scoring.benchmarks.plan.core.engine import judge_submission
from scoring.benchmarks.plan.core.types import SUBTASKS, ItemType


def test_demo_set_is_deterministic_and_covers_every_subtask() -> None:
    first, second = demo_items(), demo_items()
    assert [d.images for d in first] == [d.images for d in second]
    items = [d.item for d in first]
    assert {i.subtask for i in items} == set(SUBTASKS)
    assert {i.type for i in items} == {ItemType.SINGLE_CHOICE, ItemType.OPEN}
    assert any(len(i.images) >= 3 for i in items) and any(i.answer_hint for i in items)
    image = Image.open(io.BytesIO(next(iter(first[0].images.values()))))
    assert image.size == (320, 240)


def test_oracle_scores_100_and_random_awaits_judgement() -> None:
    items = [d.item for d in demo_items()]
    oracle = summarise(rows_of(judge_submission(items, oracle_predictions(items))))
    assert oracle.overall == 100.0 and oracle.final
    guess = summarise(rows_of(judge_submission(items, random_predictions(items))))
    assert not guess.final and guess.ranges["overall"][0] < 50


def test_plan_core_imports_no_django() -> None:
    modules = [p.stem for p in (Path(__file__).parents[5] / "scoring" / "benchmarks" / "plan" / "core").glob("*.py")]
    code = "; ".join(f"import scoring.benchmarks.plan.core.{m}" for m in modules) + "; import sys; assert 'django' not in sys.modules, sorted(m for m in sys.modules if m.startswith('django'))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[5],
                         env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
