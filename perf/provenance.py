"""What provenance costs on the site: the split's ground-truth hash (computed once per split version, samples read
from the database), a file's sha256 and the whole provenance stamp of one score, each against scoring the same
upload in the same run (the reference: the pipeline's scoring of it). The EPIC demo split on a throw-away SQLite
database (its own var folder).

Usage: .venv/bin/python perf/provenance.py [--per-leaf 4] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def best(repeat: int, call) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-leaf", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="provenance-perf-")
    os.environ.update(EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from scoring import pipeline, services
    from scoring.benchmarks.epic.core import demo
    from scoring.benchmarks.epic.importer import epic_split_import
    from scoring.core.provenance import file_sha256
    from scoring.models import ModelEntry, Split, Submission
    from scoring.provenance import score_keys, split_ground_truth_sha256

    call_command("migrate", verbosity=0)
    samples = demo.make_split(29, per_leaf=args.per_leaf)
    layout = Path(var, "layout")
    demo.write_layout(layout, samples)
    split, _ = epic_split_import(path=layout, split_name="perf", hidden=False)
    user = User.objects.create_user("perf")
    body = "\n".join(json.dumps(demo.raw_line(s, demo.oracle_response(s))) for s in samples).encode()

    def scored_upload() -> Submission:
        entry = ModelEntry.objects.filter(name="Perf").first() or ModelEntry(name="Perf", slug="perf", owner=user)
        sub = services.submission_create(user=user, split=split, model_entry=entry, options={"raw": True},
                                         uploaded_file=SimpleUploadedFile("p.jsonl", body))
        pipeline.submission_score(submission_id=sub.pk, worker="perf")
        return Submission.objects.select_related("split__benchmark", "model_entry").get(pk=sub.pk)

    scoring = best(args.repeat, scored_upload)  # includes storing the file and publishing (with its provenance)
    submission = scored_upload()

    def fresh_hash() -> None:
        Split.objects.filter(pk=split.pk).update(ground_truth_sha256="")
        split_ground_truth_sha256(split=Split.objects.get(pk=split.pk))

    hashing = best(args.repeat, fresh_hash)
    stamp = best(args.repeat, lambda: score_keys(submission=submission, scorer_version="x"))  # hash stored: cached
    file_hash = best(args.repeat, lambda: file_sha256(Path(submission.file.path)))
    print(f"EPIC demo split: {split.samples.count()} samples, prediction file {len(body)} bytes")
    print(f"reference, upload + scoring + publishing: {scoring * 1000:9.1f} ms")
    print(f"ground-truth hash (once per split version): {hashing * 1000:7.1f} ms  ({hashing / scoring:.3f} x)")
    print(f"provenance stamp of a score (hash stored):  {stamp * 1000:7.3f} ms  ({stamp / scoring:.4f} x)")
    print(f"file sha256:                                {file_hash * 1000:7.3f} ms  ({file_hash / scoring:.4f} x)")


if __name__ == "__main__":
    main()
