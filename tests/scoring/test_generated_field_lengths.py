"""Every CharField the code fills with a string it builds (scorer versions, hashes, slugs, node names) has room for
the longest one it builds. SQLite never enforces max_length, PostgreSQL does: a PLAN scorer version of 52
characters in a column of 50 failed every PLAN upload on PostgreSQL while the SQLite suite passed (issue 26, 2).

Each row names the model field and the generator the code uses for it; a registered benchmark without a row for its
scorer versions fails the test, so a new plugin cannot bring a version string nobody measured."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

import pytest
from django.apps import apps
from django.utils.text import slugify

from annotation.embeddings import backend_model_key
from scoring.benchmarks import plugins
from scoring.benchmarks.epic.core.scorer import SCORER_VERSION as EPIC_SCORER_VERSION
from scoring.benchmarks.plan.core.engine import output_hash
from scoring.benchmarks.plan.core.protocol import BUILT_IN_PROMPTS, JudgePrompts
from scoring.benchmarks.plan.core.types import Item, ItemType
from scoring.benchmarks.plan.scorer import scorer_version as plan_scorer_version
from scoring.benchmarks.plan.services.judgements import PERSON_PROMPT_VERSION
from scoring.benchmarks.vge.scorer import VERSION as VGE_SCORER_VERSION
from scoring.published import REPORTED_VERSION
from simulator.human_board import HUMAN_SCORER_VERSION

SITE_PROMPTS = JudgePrompts("s", "{answer}{hint}{output}", "s", "{question}{options}{output}", label="site")
LONGEST_HOSTNAME = "h" * 64  # Linux HOST_NAME_MAX: what Celery's %h expands to at most


def epic_versions() -> list[str]:
    return [EPIC_SCORER_VERSION]  # since epic-1.1 one version: both readings are scored per upload


def plan_versions() -> list[str]:
    return [plan_scorer_version(prompts.version) for prompts in (BUILT_IN_PROMPTS, SITE_PROMPTS)]


# slug -> every scorer_version the benchmark's scorer returns (the pipeline stores it as is on Submission and Score)
SCORER_VERSIONS: dict[str, Callable[[], list[str]]] = {
    "epic-bench": epic_versions,
    "plan-bench": plan_versions,
    "vge-bench": lambda: [VGE_SCORER_VERSION],
    # the test suite's own benchmarks, registered by some tests
    "dummy": lambda: ["dummy-1"],
    "tiny-bench": lambda: ["tiny-1"],
}


def all_scorer_versions() -> list[str]:
    versions = [v for make in SCORER_VERSIONS.values() for v in make()]
    return versions + [REPORTED_VERSION, HUMAN_SCORER_VERSION]


def plan_item() -> Item:
    return Item(id="x" * 300, dimension="d", subtask="s", type=ItemType("open"), question="q", answer="a",
                images=(), options=None, answer_hint=None)


# (app label, model, field) -> the values the code writes there, built as the code builds them
GENERATED: dict[tuple[str, str, str], Callable[[], Iterable[str]]] = {
    ("scoring", "Submission", "scorer_version"): all_scorer_versions,
    ("scoring", "Score", "scorer_version"): all_scorer_versions,
    ("scoring", "Submission", "sha256"): lambda: [hashlib.sha256(b"").hexdigest()],
    ("scoring", "Submission", "worker"): lambda: [f"{name}@{LONGEST_HOSTNAME}" for name in ("scoring", "embeddings")]
    + ["make_demo"],
    ("scoring", "ModelEntry", "slug"): lambda: [slugify("x" * 200 + "-thinking")[:200] + "-99999"],
    ("scoring", "PlanVerdict", "item_fingerprint"): lambda: [plan_item().fingerprint],
    ("scoring", "PlanVerdict", "output_hash"): lambda: [output_hash("an answer")],
    ("scoring", "PlanVerdict", "prompt_version"): lambda: [BUILT_IN_PROMPTS.version, SITE_PROMPTS.version,
                                                           PERSON_PROMPT_VERSION],
    ("scoring", "PlanJudgement", "item_fingerprint"): lambda: [plan_item().fingerprint],
    ("scoring", "PlanJudgement", "output_hash"): lambda: [output_hash("an answer")],
    ("scoring", "PlanAuditCheck", "prompt_version"): lambda: [BUILT_IN_PROMPTS.version, SITE_PROMPTS.version],
    ("scoring", "PlanAuditCheck", "draw"): lambda: [f"seed {2**63 - 1}"],
    ("annotation", "Image", "sha256"): lambda: [hashlib.sha256(b"").hexdigest()],
    ("annotation", "Embedding", "model_key"): lambda: [backend_model_key()] + [f"sam-{kind}" for kind in ("vit_h", "vit_l",
                                                                                                    "vit_b")],
    ("simulator", "Device", "digest"): lambda: [hashlib.sha256(b"").hexdigest()],
}


def test_every_registered_benchmark_declares_its_scorer_versions():
    missing = [plugin.slug for plugin in plugins() if plugin.slug not in SCORER_VERSIONS]
    assert not missing, f"add the scorer versions of {missing} to SCORER_VERSIONS in {__file__}"


@pytest.mark.parametrize("plugin", plugins(), ids=lambda p: p.slug)
def test_each_benchmarks_scorer_version_fits_where_the_pipeline_stores_it(plugin):
    for model in ("Submission", "Score"):
        max_length = apps.get_model("scoring", model)._meta.get_field("scorer_version").max_length
        for version in SCORER_VERSIONS[plugin.slug]():
            assert len(version) <= max_length, (
                f"{plugin.slug}'s scorer version {version!r} is {len(version)} characters; "
                f"scoring.{model}.scorer_version holds {max_length}")


@pytest.mark.parametrize("field", sorted(GENERATED), ids=lambda f: ".".join(f))
def test_generated_strings_fit_their_field(field):
    app_label, model, name = field
    max_length = apps.get_model(app_label, model)._meta.get_field(name).max_length
    too_long = {value: len(value) for value in GENERATED[field]() if len(value) > max_length}
    assert not too_long, f"{'.'.join(field)} holds {max_length} characters: {too_long}"
