import numpy as np
import pytest

from scoring.core.stats import (
    bootstrap_intervals,
    bootstrap_mean_intervals,
    paired_bootstrap,
    resample_indices,
)


def test_resampling_stays_within_each_stratum():
    strata = ["a"] * 5 + ["b"] * 3
    idx = resample_indices(8, strata=strata, resamples=200, seed=1)
    assert idx.shape == (200, 8)
    assert set(np.unique(idx[:, :5])) <= set(range(5))
    assert set(np.unique(idx[:, 5:])) <= {5, 6, 7}


def test_same_seed_gives_same_interval_and_other_seed_differs():
    values = np.random.default_rng(0).random(300)
    cols = {"all": [True] * 300}
    first = bootstrap_mean_intervals(values, cols, seed=7)
    assert first == bootstrap_mean_intervals(values, cols, seed=7)
    assert first != bootstrap_mean_intervals(values, cols, seed=8)


def test_mean_interval_contains_the_mean_and_matches_generic_bootstrap():
    rng = np.random.default_rng(3)
    values = rng.random(200)
    strata = ["x" if i % 3 else "y" for i in range(200)]
    mask = [i % 2 == 0 for i in range(200)]
    fast = bootstrap_mean_intervals(values, {"all": [True] * 200, "even": mask}, strata=strata, seed=5, scale=100)
    generic = bootstrap_intervals(
        200,
        lambda ix: {
            "all": 100 * values[ix].mean(),
            "even": 100 * values[ix][np.asarray(mask)[ix]].mean(),
        },
        strata=strata,
        seed=5,
    )
    assert fast["all"][0] < 100 * values.mean() < fast["all"][1]
    assert fast["all"] == pytest.approx(generic["all"])
    assert fast["even"] == pytest.approx(generic["even"])


def test_constant_scores_give_a_degenerate_interval():
    assert bootstrap_mean_intervals([1.0] * 50, {"all": [True] * 50}) == {"all": (1.0, 1.0)}


def test_paired_bootstrap_detects_a_real_difference_and_not_noise():
    rng = np.random.default_rng(11)
    base = rng.random(400)
    better = np.clip(base + 0.2, 0, 1)
    assert paired_bootstrap(better, base).significant()
    noisy = base + rng.normal(0, 0.001, 400)
    result = paired_bootstrap(noisy, base)
    assert result.shared_units == 400
    assert abs(result.difference) < 0.01


def test_paired_bootstrap_refuses_unequal_lengths():
    with pytest.raises(ValueError):
        paired_bootstrap([1.0, 2.0], [1.0])
