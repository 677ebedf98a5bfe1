"""Bootstrap statistics for scores: confidence intervals and paired significance.

Resampling is stratified (each stratum is resampled with its own size) and seeded, so a re-score gives the
same interval. Statistics are computed on resampled *index arrays*, so any metric (a mean, a pooled ratio, a
dict of columns) can be bootstrapped without copying data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20260101
Statistic = Callable[[np.ndarray], Mapping[str, float | None]]
# (per-unit numerators, per-unit denominators, scale) of a ratio statistic; see `ratio_intervals`.
Ratio = tuple[np.ndarray | Sequence[float], np.ndarray | Sequence[float], float]


def _strata_indices(n: int, strata: Sequence[str] | None) -> list[np.ndarray]:
    if strata is None:
        return [np.arange(n)]
    if len(strata) != n:
        raise ValueError(f"strata has {len(strata)} labels for {n} units")
    labels = np.asarray(strata, dtype=object)
    return [np.flatnonzero(labels == label) for label in dict.fromkeys(strata)]


def resample_indices(
    n: int, *, strata: Sequence[str] | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """A (resamples, n) array of unit indices drawn with replacement within each stratum."""
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, n), dtype=np.int64)
    start = 0
    for members in _strata_indices(n, strata):
        k = len(members)
        if k:
            out[:, start : start + k] = members[rng.integers(0, k, size=(resamples, k))]
        start += k
    return out


def count_matrix(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each of `n` units is drawn in each resample of `indices`: a (resamples, n) float matrix.

    A resampled sum of any per-unit column is then one matrix product, with no copy of the data per resample.
    """
    return np.stack([np.bincount(row, minlength=n) for row in indices]).astype(np.float64)


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float] | None:
    """The central `level` percentile interval of the finite values (a resample where a statistic is undefined
    is left out); None when no value is finite."""
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return float(low), float(high)


def bootstrap_intervals(
    n: int,
    statistic: Statistic,
    *,
    strata: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of every column that `statistic(indices)` returns. Undefined values are skipped."""
    if n == 0:
        return {}
    draws: dict[str, list[float]] = {}
    for row in resample_indices(n, strata=strata, resamples=resamples, seed=seed):
        for key, value in statistic(row).items():
            draws.setdefault(key, []).append(np.nan if value is None else float(value))
    intervals = {key: percentile_interval(np.asarray(vals), level) for key, vals in draws.items()}
    return {key: iv for key, iv in intervals.items() if iv is not None}


def bootstrap_mean_intervals(
    values: Sequence[float],
    columns: Mapping[str, Sequence[bool]],
    *,
    strata: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    scale: float = 1.0,
) -> dict[str, tuple[float, float]]:
    """Fast intervals for columns that are means of per-unit values over a subset of units.

    `columns[name][i]` says whether unit i counts toward column `name`. Vectorised: one count matrix,
    one matrix product per column set. Values are multiplied by `scale` (100 for percentages).
    """
    x = np.asarray(values, dtype=np.float64) * scale
    n = x.size
    if n == 0:
        return {}
    counts = count_matrix(resample_indices(n, strata=strata, resamples=resamples, seed=seed), n)
    names = list(columns)
    masks = np.asarray([np.asarray(columns[name], dtype=np.float64) for name in names]).T  # (n, c)
    sums = counts @ (masks * x[:, None])
    sizes = counts @ masks
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(sizes > 0, sums / sizes, np.nan)
    out: dict[str, tuple[float, float]] = {}
    for j, name in enumerate(names):
        if not masks[:, j].any():
            continue
        interval = percentile_interval(means[:, j], level)
        if interval is not None:
            out[name] = interval
    return out


def ratio_intervals(
    indices: np.ndarray, ratios: Mapping[str, Ratio], *, level: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of ratio statistics over the resamples in `indices` (from `resample_indices`).

    `ratios[name]` is (numerators, denominators, scale), one numerator and denominator per unit; on a resample
    the statistic is scale * sum(numerators) / sum(denominators) over the drawn units. A mean over the units
    where a value is defined is (mask * values, mask, 1); a pooled rate is (hits, trials, 100). Resamples with a
    zero denominator are undefined and skipped; a statistic never defined gets no interval.
    """
    if not ratios:
        return {}
    n = indices.shape[1]
    counts = count_matrix(indices, n)
    out: dict[str, tuple[float, float]] = {}
    for name, (numerators, denominators, scale) in ratios.items():
        num = np.asarray(numerators, dtype=np.float64)
        den = np.asarray(denominators, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            column = scale * (counts @ num) / (counts @ den)
        interval = percentile_interval(column, level)
        if interval is not None:
            out[name] = interval
    return out


@dataclass(frozen=True)
class PairedComparison:
    difference: float  # mean(a) - mean(b) on the shared units
    p_value: float  # two-sided bootstrap p-value of "no difference"
    shared_units: int

    def significant(self, alpha: float = 0.05) -> bool:
        return self.shared_units > 0 and self.p_value < alpha


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    strata: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedComparison:
    """Paired bootstrap on units both systems were scored on (`a[i]` and `b[i]` are the same unit)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError("paired samples must have the same length")
    if x.size == 0:
        return PairedComparison(0.0, 1.0, 0)
    diff = x - y
    observed = float(diff.mean())
    idx = resample_indices(diff.size, strata=strata, resamples=resamples, seed=seed)
    means = diff[idx].mean(axis=1)
    # Two-sided: how often the resampled difference lands on the other side of zero.
    below = float(np.mean(means <= 0.0))
    above = float(np.mean(means >= 0.0))
    p_value = min(1.0, 2.0 * min(below, above))
    return PairedComparison(observed, p_value, int(diff.size))
