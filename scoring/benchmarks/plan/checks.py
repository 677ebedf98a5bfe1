"""Start-up check: a PLAN judge prompt file that cannot be used stops `manage.py check` / runserver / migrate with
the file and the field named, instead of failing submissions one by one later."""
from __future__ import annotations

from django.core import checks

from scoring.benchmarks.plan.core.protocol import PromptFileError
from scoring.benchmarks.plan.services.judge import judge_prompts_from_settings


@checks.register()
def plan_judge_prompt_file(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    try:
        judge_prompts_from_settings()
    except PromptFileError as exc:
        return [checks.Error(str(exc), hint="Fix the file or unset PLAN_JUDGE_PROMPT_FILE (docs/plan-scoring.md).",
                             id="plan.E001")]
    return []
