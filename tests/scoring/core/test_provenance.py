"""The pure provenance core: the ground-truth hash, the provenance file's reading and the key-by-key comparison."""
from __future__ import annotations

import json

import pytest

from scoring.core.contract import SampleRecord
from scoring.core.provenance import (
    FORMAT,
    WITHHELD,
    ProvenanceInvalid,
    differences,
    document,
    ground_truth_sha256,
    read_document,
    report,
)


def samples(*pairs):
    return [SampleRecord(key=k, position=i, ground_truth=gt, inputs={"shown": i}) for i, (k, gt) in enumerate(pairs)]


def test_the_ground_truth_hash_is_over_keys_and_truth_only_in_any_order():
    a = samples(("s1", {"answer": "B", "n": 1}), ("s2", {"answer": "C"}))
    b = list(reversed(samples(("s1", {"n": 1, "answer": "B"}), ("s2", {"answer": "C"}))))
    assert ground_truth_sha256(a) == ground_truth_sha256(b)  # sample order, key order, inputs: not hashed
    assert ground_truth_sha256(a) != ground_truth_sha256(samples(("s1", {"answer": "A", "n": 1}), ("s2", {"answer": "C"})))
    assert ground_truth_sha256(a) != ground_truth_sha256(samples(("s1", {"answer": "B", "n": 1})))


def keys(**override):
    base = {"benchmark": "b", "split": "dev", "split_version": 1, "ground_truth_sha256": "a" * 64,
            "file_sha256": "f" * 64, "file_size": 10, "scorer_version": "s/1", "options": {"mode": "x"},
            "hub_version": "h", "upload_options": {}, "model": "M"}
    return {**base, **override}


def test_differences_name_every_key_as_a_dotted_path():
    claimed = document(keys(), {"overall": 50.0, "breakdown": {"TL": 40.0}, "readings": {}}, submission=3)
    same = json.loads(json.dumps(claimed))
    assert differences(claimed, same) == [] and report([]) == "same"
    found = document(keys(options={"mode": "y"}, scorer_version="s/2"),
                     {"overall": 50.0 + 1e-12, "breakdown": {"TL": 41.0}, "readings": {}})
    assert [d.key for d in differences(claimed, found)] == ["scorer_version", "options.mode", "figures.breakdown.TL"]
    assert "figures.breakdown.TL: the provenance says 40.0, found 41.0" in report(differences(claimed, found))
    # A hidden split's withheld hash is not a difference; another hash is.
    assert differences(claimed, {**claimed, "ground_truth_sha256": WITHHELD}) == []
    assert [d.key for d in differences(claimed, {**claimed, "ground_truth_sha256": "b" * 64})] == [
        "ground_truth_sha256"]


@pytest.mark.parametrize("change, path", [
    ({"format": "other/1"}, "$.format"),
    ({"split_version": "1"}, "$.split_version"),
    ({"options": []}, "$.options"),
    ({"figures": None}, "$.figures"),
])
def test_a_bad_provenance_file_is_refused_naming_the_json_path(change, path):
    good = document(keys(), {"overall": 1.0, "breakdown": {}})
    assert read_document(json.dumps(good))["format"] == FORMAT
    with pytest.raises(ProvenanceInvalid) as caught:
        read_document(json.dumps({**good, **change}))
    assert caught.value.path == path
    with pytest.raises(ProvenanceInvalid):
        read_document(b"\xff not json")
