"""Each benchmark's format page (/leaderboard/<slug>/format/): what a line looks like, the options and coordinate
systems, an example file per split that the scorer accepts and scores, and the inputs of each split to download
(questions and images of a public split, the questions only of a hidden one, never ground truth). The content comes
from the plugin, so a benchmark added as the docs say has a page too."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from html import escape

import pytest
from django.utils import timezone

from leaderboard.format_files import EXAMPLE_SAMPLES
from scoring import pipeline
from scoring.benchmarks.epic.core import prompts as epic_prompts
from scoring.benchmarks.plan.core.protocol import BUILT_IN_MODEL_PROMPTS, BUILT_IN_PROMPTS
from scoring.models import Benchmark
from tests.scoring.bench_splits import BENCHMARKS, split_of, upload
from tests.scoring.factories import PhaseFactory, SampleFactory, SplitFactory
from tests.tiny_benchmark.plugin import PLUGIN as TINY
from tests.tiny_benchmark.plugin import SLUG as TINY_SLUG

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path / "var"  # where the input zips are built


def example(client, split):
    response = client.get(f"/leaderboard/{split.benchmark.slug}/format/{split.name}-v{split.version}-example.jsonl")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    return response.content


def inputs(client, split) -> zipfile.ZipFile:
    response = client.get(f"/leaderboard/{split.benchmark.slug}/format/{split.name}-v{split.version}-inputs.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_page_links_each_split_and_its_example_file_passes_the_check_and_scores(client, tmp_path, user, benchmark):
    split = split_of(benchmark, tmp_path)
    page = client.get(f"/leaderboard/{benchmark}/format/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "What a line looks like" in html and f"{split.name}-v{split.version}-example.jsonl" in html
    body = example(client, split)
    assert len(body.splitlines()) == min(EXAMPLE_SAMPLES, split.samples.count())
    options = {"raw": True} if benchmark == "epic-bench" else {}
    check = client.post("/api/submissions/precheck/", {"benchmark": benchmark, "split": split.name,
                                                       "file": io.BytesIO(body), **options})
    assert check.json()["ok"] is True and check.json()["missing_count"] == 0, check.json()
    submission = upload(user, split, body, options=options)
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"


def test_the_epic_page_has_the_coordinate_systems_and_the_model_families(client, tmp_path):
    split_of("epic-bench", tmp_path)
    html = client.get("/leaderboard/epic-bench/format/").content.decode()
    for mode in ("auto", "absolute", "normalized_0_1", "normalized_0_1000"):
        assert f"<code>{mode}</code>" in html
    assert "<td>Qwen2.5-VL</td><td><code>absolute</code></td>" in html
    assert "<td>Gemini</td><td><code>normalized_0_1000</code></td>" in html
    assert "upload it with raw=true" in html


def test_a_hidden_split_hands_out_its_questions_only_and_no_ground_truth(client, tmp_path):
    split = split_of("epic-bench", tmp_path)
    assert split.hidden_ground_truth
    archive = inputs(client, split)
    assert sorted(archive.namelist()) == ["README.txt", "prompt_templates.json", "prompts.jsonl", "questions.jsonl"]
    lines = [json.loads(x) for x in archive.read("questions.jsonl").splitlines()]
    assert [x["key"] for x in lines] == list(split.samples.order_by("position", "key").values_list("key", flat=True))
    first = lines[0]
    assert first["inputs"]["prompt"] and all(name.startswith("EPIC_Bench/") for name in first["inputs"]["images"])
    text = archive.read("questions.jsonl").decode()
    assert "ground_truth" not in text and "mask_annotation" not in text and "/media/" not in text
    assert "questions only" in archive.read("README.txt").decode()


def public_inputs(client, slug: str, tmp_path):
    """The split of `slug` imported under tmp_path, made public; its inputs archive, its question lines and the
    image names they use (asserted to be in the archive)."""
    split = split_of(slug, tmp_path)
    split.hidden_ground_truth = False
    split.save()
    archive = inputs(client, split)
    lines = [json.loads(x) for x in archive.read("questions.jsonl").splitlines()]
    names = [name for line in lines for name in line["inputs"]["images"]]
    assert names and set(names) <= set(archive.namelist())
    return split, archive, lines, names


def test_a_public_split_hands_out_its_questions_and_images_under_the_names_the_lines_use(client, tmp_path):
    split, archive, _, names = public_inputs(client, "epic-bench", tmp_path)
    names = set(names)
    stored = (tmp_path / next(iter(sorted(names))))  # the layout the split was imported from
    assert archive.read(next(iter(sorted(names)))) == stored.read_bytes()
    # The example file's raw lines name the same images, so a model run over the zip answers in the same terms.
    assert {n for line in example(client, split).splitlines() for n in json.loads(line)["images"]} <= names


def test_a_benchmark_added_as_the_docs_say_has_a_format_page(client, register_benchmark):
    register_benchmark(TINY)
    split = SplitFactory(benchmark__slug=TINY_SLUG, benchmark__name="Tiny-Bench", benchmark__scorer=TINY_SLUG,
                         name="dev", hidden_ground_truth=True)
    SampleFactory(split=split, key="q1", position=0, inputs={"question": "Which colour?"},
                  ground_truth={"answer": "red"})
    page = client.get(f"/leaderboard/{TINY_SLUG}/format/")
    assert page.status_code == 200 and "naming its sample by the sample&#x27;s key" in page.content.decode()
    lines = inputs(client, split).read("questions.jsonl").decode()
    assert "Which colour?" in lines and "red" not in lines
    assert client.get(f"/leaderboard/{TINY_SLUG}/format/dev-v1-example.jsonl").status_code == 404


def test_unknown_benchmarks_and_splits_are_404(client, tmp_path):
    split_of("plan-bench", tmp_path)
    assert client.get("/leaderboard/nope/format/").status_code == 404
    assert client.get("/leaderboard/plan-bench/format/nope-v1-example.jsonl").status_code == 404
    assert client.get("/leaderboard/plan-bench/format/t-v9-inputs.zip").status_code == 404


def test_a_public_plan_split_hands_out_its_images_by_their_stored_paths(client, tmp_path):
    _, archive, lines, names = public_inputs(client, "plan-bench", tmp_path)
    assert all(archive.read(name)[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0", b"\xff\xd8\xff\xe1", b"\xff\xd8\xff\xdb")
               for name in names[:3])
    assert all("question" in line["inputs"] for line in lines)
    assert "answer" not in archive.read("questions.jsonl").decode().replace('"answer_', "")


def test_the_plan_page_shows_the_prompts_in_use_and_follows_the_sites_prompt_file(client, settings, tmp_path):
    split_of("plan-bench", tmp_path)
    settings.PLAN_JUDGE_PROMPT_FILE = ""
    block = client.get("/leaderboard/plan-bench/format/").content.decode().split('id="format-prompts"')[1]
    block = block.split("</table>")[0]
    model = BUILT_IN_MODEL_PROMPTS
    for text in (model.single_choice_suffix, model.open_suffix):
        assert f"<code style=\"white-space: pre-wrap\">{escape(text)}</code>" in block
    assert f"{BUILT_IN_PROMPTS.version}: a paraphrase of the paper&#x27;s judge" in block
    # A site's prompt file changes both, and the page says whose they are.
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({
        "open_system": "S", "open_user": "{answer}{hint}{output}", "choice_system": "C",
        "choice_user": "{question}{options}{output}",
        "model_prompts": {"base": "Look closely.", "single_choice_suffix": "One letter, please.",
                          "open_suffix": "A short phrase, please."}}))
    settings.PLAN_JUDGE_PROMPT_FILE = str(prompts)
    block = client.get("/leaderboard/plan-bench/format/").content.decode().split('id="format-prompts"')[1]
    block = block.split("</table>")[0]
    assert "One letter, please." in block and "A short phrase, please." in block and "Look closely." in block
    assert model.single_choice_suffix not in block
    assert "Judge prompt version</td><td><code style=\"white-space: pre-wrap\">site#" in block
    assert "supplied by this site; every verdict" in block
    prompts.write_text("{")
    page = client.get("/leaderboard/plan-bench/format/")
    assert page.status_code == 200 and "cannot be used" in page.content.decode().split('id="format-prompts"')[1]


def test_a_benchmark_without_prompts_shows_no_prompt_section(client, tmp_path):
    split_of("vge-bench", tmp_path)
    assert 'id="format-prompts"' not in client.get("/leaderboard/vge-bench/format/").content.decode()


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


def test_a_hidden_epic_splits_inputs_hold_the_papers_prompts_built_from_inputs_only(client, tmp_path):
    """The issue: "Serve the paper's system prompts and response-format blocks (App. C) with each split's inputs
    download [...] per task type, so a model author can run the benchmark exactly as the paper did". On a hidden
    split the prompts come from what a model is shown: no mask, count or answer of the ground truth."""
    split = split_of("epic-bench", tmp_path)
    assert split.hidden_ground_truth
    archive = inputs(client, split)
    questions = {x["key"]: x for x in map(json.loads, archive.read("questions.jsonl").splitlines())}
    prompts = [json.loads(x) for x in archive.read("prompts.jsonl").splitlines()]
    assert [p["key"] for p in prompts] == list(questions)
    tasks = epic_prompts.task_prompts()
    for line in prompts:
        question = questions[line["key"]]
        task = tasks[line["prompt_task"]]
        assert line["images"] == question["inputs"]["images"] and len(line["images"]) == task.images
        assert line["system"] == task.system_prompt.strip().splitlines()[0]
        assert line["user"] == "\n".join([task.system_prompt.strip().split("\n", 1)[1].strip(),
                                          task.response_format.strip(), *[" <image> "] * task.images,
                                          *question["inputs"]["prompt"]]).strip()
    by_task = {line["task"]: line for line in prompts}
    assert by_task["FeasiblePath_Exo"]["user"].endswith("Target Area Description: the red mat, the door.")
    # Nothing of the ground truth: no mask, no GT field, no scored value that is not in the inputs.
    text = archive.read("prompts.jsonl").decode() + archive.read("prompt_templates.json").decode()
    truth = [s.ground_truth for s in split.samples.all()]
    masks = {s for gt in truth for s in _strings(gt.get("mask_annotation")) if len(s) > 8}
    assert masks and not any(m in text for m in masks)
    for name in ("masklet_", "count_target_instance", "count_contact_target", "count_matching_area",
                 "precise_count", "count_in_description", "placement_feasible", "visually_blocked", "/media/",
                 "ground_truth", "mask_annotation"):
        assert name not in text, name
    templates = json.loads(archive.read("prompt_templates.json"))
    assert templates["source"]["license"] == "Apache-2.0"
    assert "prompts.jsonl" in archive.read("README.txt").decode()


def test_the_epic_format_page_shows_each_task_types_system_prompt_and_response_format(client, tmp_path):
    """The issue: "Serve the paper's system prompts and response-format blocks (App. C) [...] on the format page, per
    task type"."""
    split_of("epic-bench", tmp_path)
    block = client.get("/leaderboard/epic-bench/format/").content.decode().split('id="format-prompts"')[1]
    block = block.split("</table>")[0]
    for task in epic_prompts.task_prompts().values():
        assert f"{task.title}: system prompt ({task.system_var})" in block
        assert f"{task.title}: response format ({task.response_var})" in block
        for text in (task.system_prompt.strip(), task.response_format.strip()):
            assert f"<code style=\"white-space: pre-wrap\">{escape(text)}</code></details>" in block


def test_the_command_line_example_names_a_split_that_takes_uploads_now(client, tmp_path):
    # Given a benchmark whose default split is a paper's table (no samples), a closed phase's split and an open one
    bench = Benchmark.objects.get(slug="plan-bench")
    default = bench.splits.get(is_default=True)
    assert not default.samples.exists()
    closed = SplitFactory(benchmark=bench, name="closed", phase=PhaseFactory(
        benchmark=bench, name="Over", closes_at=timezone.now() - timedelta(days=1)))
    SampleFactory(split=closed, key="c0", position=0)
    SampleFactory(split=SplitFactory(benchmark=bench, name="dev"), key="k0", position=0)
    # When the format page shows how to submit from a script
    block = client.get("/leaderboard/plan-bench/format/").content.decode().split('id="format-cli"')[1]
    # Then the command names the split the client can upload to, not the empty default or a closed phase's
    assert "--split dev " in block and f"--split {default.name} " not in block and "--split closed" not in block
