"""The agent API's `perturbation` episode option: validated, recorded, applied to every served view
deterministically per turn, bundled into its own submission and compared on the Analysis tab."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from django.core.cache import cache

from scoring import pipeline
from scoring.benchmarks.vge.core.perturb import occluder_patches
from scoring.models import Submission
from simulator.models import Episode
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db


def start(client, perturbation=None, task="tiny/t1"):
    body = {"task": task} if perturbation is None else {"task": task, "perturbation": perturbation}
    return client.post("/api/vge/episodes/", body, format="json")


def image(client, episode, turn=None) -> bytes:
    response = client.get(f"/api/vge/episodes/{episode}/view.png" + ("" if turn is None else f"?turn={turn}"))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    return response.content if not response.streaming else b"".join(response.streaming_content)


def decoded(png: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)


def test_a_perturbation_is_recorded_and_applied_to_each_view(token_client, tiny_split):
    plain = start(token_client).json()["episode"]
    blurred = start(token_client, " BLUR:2 ").json()["episode"]
    assert Episode.objects.get(pk=blurred).perturbation == "blur:2"
    assert token_client.get(f"/api/vge/episodes/{blurred}/").json()["perturbation"] == "blur:2"
    assert token_client.get(f"/api/vge/episodes/{plain}/").json()["perturbation"] == ""
    assert image(token_client, blurred) != image(token_client, plain)
    assert image(token_client, blurred) == image(token_client, blurred)  # deterministic
    occluded = start(token_client, "occlude:0.25").json()["episode"]
    token_client.post(f"/api/vge/episodes/{occluded}/act/", {"output": OPEN_DASH}, format="json")
    assert image(token_client, occluded, 0) == image(token_client, occluded, 0)


def test_an_occluded_view_has_eight_black_patches_over_the_levels_share(token_client, tiny_split):
    """The paper (E.2): "Occlusion uses eight black patches covering total area ratios of 10%, 25%, or 40%". The
    served view of an occluded episode is the plain view with eight black patches over exactly that share of its
    pixels, placed from the episode's seed (its id and turn): the same on every request, elsewhere for another
    episode."""
    plain = decoded(image(token_client, start(token_client).json()["episode"]))
    height, width = plain.shape[:2]
    placed = []
    for share in (0.1, 0.25, 0.4):
        episode = start(token_client, f"occlude:{share}").json()["episode"]
        served = decoded(image(token_client, episode))
        assert np.array_equal(served, decoded(image(token_client, episode)))
        patches = occluder_patches(height, width, share, key=f"{episode}:0")
        mask = np.zeros((height, width), bool)
        for top, left, h, w in patches:
            mask[top:top + h, left:left + w] = True
        assert len(patches) == 8 and int(mask.sum()) == round(share * height * width)
        assert (served[mask] == 0).all() and np.array_equal(served[~mask], plain[~mask])
        placed.append(patches)
    assert placed[0] != occluder_patches(height, width, 0.1, key=f"{episode}:0")  # another episode, other places


def test_a_bad_perturbation_is_refused_with_the_reason(token_client, tiny_split):
    response = start(token_client, "blur:50")
    assert response.status_code == 400
    assert "blur σ must be in (0, 20]" in json.dumps(response.json()["errors"]["perturbation"], ensure_ascii=False)
    assert not Episode.objects.exists()


def play_and_bundle(token_client) -> dict[str, Submission]:
    """An episode played unperturbed and one with jpeg:20 (two turns each), each bundled and scored as Agent-P."""
    for perturbation in (None, "jpeg:20"):
        episode = start(token_client, perturbation).json()["episode"]
        for output in (OPEN_DASH, PRESS_POWER):
            token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")
    made = {}
    for perturbation in ("", "jpeg:20"):
        response = token_client.post("/api/vge/submissions/", {"model": "Agent-P", "split": "dev",
                                                                "perturbation": perturbation}, format="json")
        assert response.status_code == 201, response.content
        made[perturbation] = Submission.objects.get(pk=response.json()["submission"])
        assert pipeline.submission_score(submission_id=made[perturbation].pk, worker="w") == "scored"
    return made


def robustness_rows(client, query: str = "") -> list[tuple]:
    cache.clear()
    fig = json.loads(client.get(f"/leaderboard/vge-bench/analysis/robustness.json?split=dev{query}").content)
    return [(r["model"], r["perturbation"], r["level"], r["episodes"], r["SR"], r["SSR"], r["delta_SR"])
            for r in fig["rows"]]


def test_perturbed_episodes_bundle_apart_and_show_in_the_robustness_figure(token_client, client, tiny_split):
    made = play_and_bundle(token_client)
    assert made["jpeg:20"].options == {"perturbation": "jpeg:20"} and made[""].options == {}
    missing = token_client.post("/api/vge/submissions/", {"model": "Agent-P", "split": "dev",
                                                           "perturbation": "blur:3"}, format="json")
    assert missing.status_code == 400 and "with perturbation blur:3" in missing.json()["detail"]
    # The split has two tasks; each bundle played t1 only (t2 counts as a failed episode).
    assert robustness_rows(client) == [("Agent-P", "none", None, 2, 50.0, 50.0, 0.0),
                                       ("Agent-P", "jpeg", "20", 2, 50.0, 50.0, 0.0)]


def test_the_robustness_figure_honours_the_boards_filters_and_counts_public_uploads_only(token_client, client,
                                                                                          tiny_split):
    made = play_and_bundle(token_client)
    both = [("Agent-P", "none", None, 2, 50.0, 50.0, 0.0), ("Agent-P", "jpeg", "20", 2, 50.0, 50.0, 0.0)]
    # Both submissions count although the board's best-entry rule shows one of them...
    assert robustness_rows(client, "&q=agent-p") == both
    # ...and none when the filters leave the model out, by search, by kind or by source.
    assert robustness_rows(client, "&q=nobody") == []
    kind = made[""].model_entry.kind
    other_kind = next(k for k in ("proprietary", "open-source") if k != kind)
    assert robustness_rows(client, f"&kind={other_kind}") == []
    assert robustness_rows(client, "&source=reported") == []
    # A private perturbed upload is not compared in public: nothing perturbed is left to compare.
    made["jpeg:20"].visibility = Submission.Visibility.PRIVATE
    made["jpeg:20"].save(update_fields=["visibility"])
    assert robustness_rows(client) == []
