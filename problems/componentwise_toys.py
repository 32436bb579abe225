"""Toy problems of the componentwise LS-SVM chapter that the catalogue's generators do not
cover (Pelckmans et al., componentwise LS-SVM chapter)."""

from __future__ import annotations

import numpy as np

from .base import Dataset, as_rng

__all__ = ["sinc4"]


def sinc4(n_train: int = 100, n_test: int = 200, *, noise_std: float = 0.1, low: float = -3.0,
          high: float = 3.0, seed: int | np.random.Generator | None = 0) -> Dataset:
    """The four-input toy of Figure 6: ``y = sinc(x^1) + e`` with ``x ~ U[low, high]^4``.

    Only the first input is relevant; inputs 2-4 are noise.  The chapter gives neither N,
    the input range nor the noise level; the defaults here (N = 100, ``U[-3, 3]``, noise
    std 0.1, ``sinc(x) = sin(πx)/(πx)``) are our choice and are stated in the benchmark's
    row labels.  The test set is noise-free.

    Parameters
    ----------
    n_train, n_test : int
        Sizes of the training and (noise-free) test sets.
    noise_std : float
        Standard deviation of the Gaussian noise ``e``.
    low, high : float
        Range of every input.
    seed : int, Generator or None
        Random seed.

    Returns
    -------
    Dataset
        ``meta["relevant_features"] == [0]``.
    """
    if n_train < 2 or n_test < 0:
        raise ValueError(f"need n_train >= 2 and n_test >= 0, got {n_train}, {n_test}")
    if not (np.isfinite(noise_std) and noise_std >= 0):
        raise ValueError(f"noise_std must be finite and >= 0, got {noise_std!r}")
    if not high > low:
        raise ValueError(f"need high > low, got [{low}, {high}]")
    rng = as_rng(seed)
    X = rng.uniform(low, high, (n_train, 4))
    y = np.sinc(X[:, 0]) + noise_std * rng.standard_normal(n_train)
    Xt = rng.uniform(low, high, (n_test, 4))
    return Dataset(name="sinc4", X=X, y=y, task="regression", X_test=Xt, y_test=np.sinc(Xt[:, 0]),
                   feature_names=("x1", "x2", "x3", "x4"),
                   meta={"kind": "synthetic", "section": "Figure 6",
                         "formula": "y = sinc(x1) + e, x ~ U[low, high]^4",
                         "relevant_features": [0], "noise_sigma": noise_std,
                         "generator_args": {"n_train": n_train, "n_test": n_test,
                                            "noise_std": noise_std, "low": low, "high": high}})
