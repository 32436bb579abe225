"""One streamed engine (issue 30, 2026-11-29): :class:`~lssvm_cvx.linalg.streaming.
StreamingPenalizedLS` over an :class:`~lssvm_cvx.linalg.streaming.ArraySource` of PyTorch or
``array-api-strict`` arrays — the device twin ``DeviceStreamedPenalizedLS`` it replaced —
answers as over NumPy arrays, and both as the in-memory engine on the whole design."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import InputError
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.linalg.streaming import ArraySource, StreamingPenalizedLS


def _problem(n: int = 41, m: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 2))
    Z = X[:m]
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
    G = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / 2)
    return X, Z, y, G


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("all_rows", [True, False])
def test_the_streamed_engine_on_another_namespace_equals_numpy(ns, all_rows, to_namespace,
                                                                to_numpy):
    conv = to_namespace(ns)
    X, Z, y, G = _problem()
    loo_rows = None if all_rows else np.arange(0, len(y), 3)

    def make(cv, features):
        return StreamingPenalizedLS(ArraySource(cv(X), cv(y)[:, None], block_rows=8), features,
                                    cv(G), None, loo_rows, cv(np.full(len(Z), 0.5)))

    import array_api_compat

    xp = array_api_compat.array_namespace(conv(X))
    dZ = conv(Z)
    ref = make(np.asarray, lambda xb: np.exp(-((xb[:, None] - Z[None]) ** 2).sum(-1)))
    dev = make(conv, lambda xb: xp.exp(-xp.sum((xb[:, None, :] - dZ[None, :, :]) ** 2, axis=-1)))
    f_ref, f_dev = ref.fit(0.3, 0.1), dev.fit(0.3, 0.1)
    assert type(f_dev.theta) is type(conv(X))
    np.testing.assert_allclose(to_numpy(f_dev.theta), f_ref.theta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(f_dev.loo), np.asarray(f_ref.loo), rtol=1e-9, atol=1e-12)
    assert dev.fit_score(f_dev, "mse") == pytest.approx(ref.fit_score(f_ref, "mse"), rel=1e-10)
    np.testing.assert_allclose(dev.path("mu", [0.01, 0.3, 3.0], {"nu": 0.1}).scores,
                               ref.path("mu", [0.01, 0.3, 3.0], {"nu": 0.1}).scores, rtol=1e-9)
    if all_rows:
        np.testing.assert_allclose(to_numpy(f_dev.jackknife_influence()),
                                   f_ref.jackknife_influence(), rtol=1e-9, atol=1e-12)
        # the in-memory engine on the whole design: the same model and residuals
        Phi = np.exp(-((X[:, None] - Z[None]) ** 2).sum(-1))
        mem = PenalizedLS(Phi, y, G, None).fit(0.3, 0.1)
        np.testing.assert_allclose(f_ref.theta, mem.theta, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(np.asarray(f_ref.loo), mem.loo, rtol=1e-8, atol=1e-10)
    bad = X.copy()
    bad[17, 1] = np.nan
    with pytest.raises(InputError, match="row 17"):
        StreamingPenalizedLS(ArraySource(conv(bad), conv(y)[:, None], block_rows=8),
                             lambda xb: xb, None, None, None, conv(np.zeros(2)),
                             penalties={"ridge": None})
