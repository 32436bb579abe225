"""``AutoLSSVMRegressor`` and ``AutoLSSVMClassifier`` on device arrays (issue 31, item 2):
standardisation, the exact basis of eq. (8) or the Nyström one, the (γ, μ, ν) leave-one-out
search, the fit, ``predict`` and ``predict_interval`` run in the inputs' array namespace and on
their device (:class:`lssvm_cvx.linalg.penalized.PenalizedLS`, which takes its namespace from
its inputs); the fitted model stays there.  The fit is the CPU fit's own code
(``AutoLSSVMRegressor._fit_targets``: :func:`~lssvm_cvx.estimators.auto_stream.input_stats`,
the centres, :func:`~lssvm_cvx.estimators.auto_stream.problem_factory`, the search and
:func:`record_fit`); this module holds what differs on a device: the checks and targets
(:func:`device_fit_inputs`), the exact basis' memory guard (:func:`device_basis`) and the
predictions.

Which inputs take this path: those of :func:`lssvm_cvx.estimators.lssvm_device.uses_device`
(arrays of an array-API library other than NumPy off the CPU, or any of them with
``lssvm_cvx.array_api_dispatch()`` or scikit-learn's ``array_api_dispatch`` on).

What it covers: the exact (dual) basis (``approximation="exact"``, or ``"auto"`` up to
``max_exact`` rows: raise ``max_exact`` to fit more rows exactly on a GPU, the basis is N × N)
and the Nyström basis (``"nystroem"``, or ``"auto"`` above ``max_exact``: the CPU path's
centres, the design formed block by block on the device and never held whole,
:class:`~lssvm_cvx.linalg.streaming.StreamingPenalizedLS`, with the LOO criterion and
residuals on the CPU path's ``n_loo`` rows); both margins; every criterion; the search of
:func:`lssvm_cvx.selection.auto.auto_search` unchanged (the same grids, the same width-stage
subsample, the same decisions), so the model equals the CPU fit on the same data to rounding
(``tests/test_device_auto.py``: 1e-10 under PyTorch-CPU and ``array-api-strict``).  What the
CPU computes from a few rows is computed there from a copy: the affine dimension ``c`` of the
standardised inputs (at most 4000 rows, as on the CPU).  The random-feature basis and
``sample_weight`` are one-line errors that name the CPU path.  The classifier codes its labels
on the device (``classes_`` stays there; one ±1 column for two classes, one per class for more,
as :func:`~lssvm_cvx.checks.encode_labels`), and its temperature is fitted on the CPU from a
copy of the ``n × T`` LOO decision values; ``predict``, ``predict_proba`` and
``predict_log_proba`` run on the device.

Precision: the computation is float64 whatever the inputs' dtype (float32 inputs are
promoted; the fitted arrays are float64).  The search ranks (μ, ν) by LOO scores read off
generalised eigendecompositions of matrices whose condition numbers reach 1e7 and more: a
float32 search selected a different (γ, μ, ν) from the float64 one (and the CPU's) on the first
small data set we tried, during development (not a committed measurement), so float32 is not
offered here; ``tests/test_device_auto.py`` checks that float32 inputs give the float64 model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device import check_memory, namespace_of
from ..exceptions import HyperparameterError, InputError
from ..linalg.penalized import Fit
from ..terms.gradient_basis import basis_transform
from .lssvm_device import device_targets, to_cpu
from .search_results import search_results

__all__ = ["EXACT_MATRICES", "device_fit_inputs", "device_basis", "record_fit",
           "constant_model", "auto_decision_device", "auto_interval_device",
           "auto_calibration_targets", "auto_labels_device", "auto_proba_device"]

#: N × N float64 arrays the exact basis needs at its peak (the design, its centred copy, C, G, R,
#: a path's Cholesky factor, reduced matrix and eigenvectors, with room for the library's
#: workspace); checked against the device's free memory before the first is formed
EXACT_MATRICES = 10.0

_CPU = ("; convert the inputs to NumPy (for PyTorch: X.cpu().numpy()) for the CPU path, which "
        "has it")


def device_fit_inputs(est: Any, X: Any, y: Any, sample_weight: Any, *,
                      classification: bool = False) -> tuple[Any, Any]:
    """The checks of a device fit and its targets (module docstring): returns ``X`` as float64
    and the model's targets ``Y`` as float64 — the regressor's ``y``
    standardised (``y_mean_``, ``y_scale_`` set), the classifier's ±1 coding of its labels
    (``classes_`` set, on the device; one column for two classes, one per class for more, as
    :func:`~lssvm_cvx.checks.encode_labels`).  The rest of the fit is the CPU path's
    (``AutoLSSVMRegressor._fit_targets``), on the inputs' device.

    Parameters
    ----------
    est : AutoLSSVMRegressor or AutoLSSVMClassifier
    X, y : arrays of one array-API namespace and device, shapes (n, d) and (n,)
    sample_weight : None
        Anything else is refused.
    classification : bool, default=False
        ``y`` holds labels.

    Returns
    -------
    tuple
        ``(X, Y)``, on the inputs' device.
    """
    if sample_weight is not None:
        raise InputError(f"sample_weight is not supported on a device{_CPU}")
    xp, _, Y = device_targets(est, X, y, classification, multiclass=True)
    X, Y = xp.astype(X, xp.float64), xp.astype(Y, xp.float64)
    est.n_features_in_ = int(X.shape[1])
    est.sample_weighted_ = False
    if not classification:
        est.y_mean_ = float(xp.mean(Y))
        sd = float(xp.std(Y))
        est.y_scale_ = sd if sd > 0 else 1.0
        Y = (Y - est.y_mean_) / est.y_scale_
    return X, Y


def device_basis(est: Any, kind: str, xp: Any, device: Any) -> Any:
    """The checks of the basis of a device fit: the exact and the Nyström bases only (a one-line
    error that names the CPU path otherwise); returns the exact basis' memory guard
    (:data:`EXACT_MATRICES` float64 N × N arrays against the device's free memory)."""
    if kind not in ("exact", "nystroem"):
        raise HyperparameterError(f"on a device the Auto LS-SVM uses the exact or the Nyström "
                                  f"basis, got approximation={est.approximation!r}{_CPU}")
    return lambda Xr: check_memory(int(Xr.shape[0]), 8, EXACT_MATRICES, xp, device)


def record_fit(est: Any, res: Any, fit: Fit, kind: str, params: dict[str, Any], *,
               jackknife: bool) -> None:
    """Set the fitted attributes of an Auto LS-SVM from its search result ``res``
    (:class:`~lssvm_cvx.selection.auto.SearchResult`) and the final ``fit`` of its problem
    (the CPU and the device fits alike).

    Parameters
    ----------
    est : AutoLSSVMRegressor or AutoLSSVMClassifier
    res : SearchResult
    fit : Fit
        The solve at the chosen ``(μ, ν)`` of the problem at the chosen width.
    kind : str
        The basis (``basis_kind_``).
    params : dict
        What :func:`~lssvm_cvx.terms.gradient_basis.basis_transform` (or the device design)
        needs to form the basis at new points (``basis_params_``).
    jackknife : bool
        Whether the model may keep the jackknife+ influence (it then does when the LOO
        residuals of every row are known).
    """
    pr = fit.problem
    n = pr.N
    est.rcond_ = fit.rcond
    est.jackknife_Q_ = fit.jackknife_influence() if jackknife and pr.n_loo == n else None
    est.loo_rows_ = None if pr.loo_rows is None or pr.loo_rows.size == n else pr.loo_rows
    est.basis_kind_ = kind
    est.basis_params_ = params
    est.phi_mean_ = pr.phi_mean
    est.kernel_gamma_, est.mu_, est.nu_ = res.gamma, res.mu, res.nu
    est.gamma_ = est.kernel_gamma_  # deprecated alias, removed with the ``gamma`` spelling
    est.mu_paper_, est.nu_paper_ = pr.paper_weights(res.mu, res.nu)
    est.loo_score_ = res.score
    est.search_ = res.to_dict()
    est.cv_results_ = _auto_cv_results(est.search_["history"], res.criterion)
    est.coef_, est.intercept_ = fit.theta, fit.b
    est.loo_std_ = fit.loo  # LOO residuals in standardised target units, (N, T)
    est.n_basis_ = pr.m


def constant_model(est: Any, Y: Any) -> None:
    """The model of inputs without variation, ``f = mean(y)`` with its exact LOO residuals
    ``(y_i - ȳ) N/(N - 1)`` (for the CPU and the device fits: ``Y`` of any namespace, (N,) or
    (N, T))."""
    import array_api_compat as aac

    xp = aac.array_namespace(Y)
    device = aac.device(Y)
    Y2 = Y[:, None] if Y.ndim == 1 else Y
    est.basis_kind_ = "constant"
    est.basis_params_ = {}
    est.phi_mean_ = xp.zeros((0,), dtype=xp.float64, device=device)
    est.kernel_gamma_ = est.gamma_ = est.mu_ = est.nu_ = float("nan")
    est.mu_paper_ = est.nu_paper_ = float("nan")
    n = int(Y2.shape[0])
    est.loo_std_ = (Y2 - xp.mean(Y2, axis=0)) * n / (n - 1)
    est.loo_score_ = float(xp.mean(est.loo_std_ ** 2))
    est.search_ = {"history": []}
    est.cv_results_ = _auto_cv_results([], None)
    est.coef_ = xp.zeros((0, int(Y2.shape[1])), dtype=xp.float64, device=device)
    est.intercept_ = xp.mean(Y2, axis=0)
    est.jackknife_Q_ = None
    est.rcond_ = 1.0
    est.n_basis_ = 0
    est.loo_rows_ = None


def auto_calibration_targets(est: Any) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's exact LOO decision values as an (n, T) NumPy array and the class
    index of each of those rows (``y = F + r`` is the ±1 coding), for the temperature of
    :meth:`AutoLSSVMClassifier._calibrate` on the CPU (the CPU and the device fits alike; from
    a device, n × T numbers are copied)."""
    F = to_cpu(est.loo_decision_)
    F = F[:, None] if F.ndim == 1 else F
    Y = F + to_cpu(est.loo_std_)
    return F, ((Y[:, 0] > 0).astype(np.intp) if Y.shape[1] == 1 else Y.argmax(axis=1))


def auto_labels_device(est: Any, F: Any) -> Any:
    """The classifier's labels on the device: ``classes_[f > 0]`` (binary, ``F`` of shape
    (n,)) or ``classes_[argmax F]``."""
    xp, _ = namespace_of(F, est.classes_)
    k = xp.astype(F > 0, xp.int64) if F.ndim == 1 else xp.argmax(F, axis=1)
    return xp.take(est.classes_, k, axis=0)


def auto_proba_device(est: Any, F: Any, *, log: bool = False) -> Any:
    """Calibrated (log-)probabilities ``softmax(a Z)`` on the device, ``Z = [-f/2, f/2]``
    (binary) or ``F``, ``a = temperature_`` (as :meth:`AutoLSSVMClassifier.predict_proba`)."""
    xp, _ = namespace_of(F)
    Z = est.temperature_ * (xp.stack([-F / 2, F / 2], axis=1) if F.ndim == 1 else F)
    Z = Z - xp.max(Z, axis=1, keepdims=True)
    logp = Z - xp.log(xp.sum(xp.exp(Z), axis=1, keepdims=True))
    return logp if log else xp.exp(logp)


def _design(est: Any, X: Any) -> tuple[Any, Any]:
    """The namespace and the design ``Φ(x)`` of new device inputs (checked against the fit)."""
    xp, _ = namespace_of(X, est.intercept_)
    if X.ndim != 2 or int(X.shape[1]) != est.n_features_in_:
        raise InputError(f"X must be (n, {est.n_features_in_}), got shape {tuple(X.shape)}")
    Xs = (xp.astype(X, est.intercept_.dtype) - est.x_mean_) / est.x_scale_
    if est.basis_kind_ == "constant":
        return xp, xp.zeros((int(X.shape[0]), 0), dtype=Xs.dtype, device=namespace_of(X)[1])
    return xp, basis_transform(est.basis_kind_, est.basis_params_, Xs)


def auto_decision_device(est: Any, X: Any) -> Any:
    """``Φ(x)θ + b`` in standardised target units, shape (n, 1), on the model's device."""
    _, Phi = _design(est, X)
    return Phi @ est.coef_ + est.intercept_


def auto_interval_device(est: Any, X: Any, coverage: float) -> Any:
    """The jackknife+ interval of :meth:`AutoLSSVMRegressor.predict_interval` on the device
    (order statistics by sorting; ``coverage`` already checked), shape (n, 2)."""
    xp, Phi = _design(est, X)
    f = (Phi @ est.coef_ + est.intercept_)[:, 0]
    r = est.loo_std_[:, 0]
    n = int(r.shape[0])
    alpha = 1.0 - coverage
    k_hi = int(np.ceil((1 - alpha) * (n + 1)))
    k_lo = int(np.floor(alpha * (n + 1)))
    R = xp.abs(r)
    inf = float("inf")
    if est.jackknife_Q_ is None:
        q = xp.sort(R)[k_hi - 1] if k_hi <= n else inf
        lo, hi = f - q, f + q
    else:
        step = max(1, 2_000_000 // max(n, 1))
        los, his = [], []
        for s in range(0, int(f.shape[0]), step):
            e = min(s + step, int(f.shape[0]))
            D = (Phi[s:e, ...] - est.phi_mean_) @ est.jackknife_Q_
            F = f[s:e, None] - r[None, :] / n - D
            his.append(xp.sort(F + R, axis=1)[:, k_hi - 1] if k_hi <= n
                       else xp.full((e - s,), inf, dtype=F.dtype, device=namespace_of(F)[1]))
            los.append(xp.sort(F - R, axis=1)[:, k_lo - 1] if k_lo >= 1
                       else xp.full((e - s,), -inf, dtype=F.dtype, device=namespace_of(F)[1]))
        lo, hi = xp.concat(los), xp.concat(his)
    return xp.stack([lo, hi], axis=1) * est.y_scale_ + est.y_mean_


def _auto_cv_results(history: list[dict[str, Any]], criterion: Any) -> dict[str, Any]:
    """The search history of :func:`~lssvm_cvx.selection.auto.auto_search` as
    ``cv_results_`` (:func:`~lssvm_cvx.estimators.search_results.search_results`), for the
    CPU and the device fits alike."""
    params = [{"kernel_gamma": float(h["gamma"]), "mu": float(h["mu"]), "nu": float(h["nu"])}
              for h in history]
    return search_results(params, [float(h["score"]) for h in history],
                          stage=np.asarray([str(h["stage"]) for h in history]),
                          n_rows=np.asarray([int(h["rows"]) for h in history], dtype=np.int64),
                          criterion=criterion)

