"""Bases of the Auto LS-SVM (Sorber 2017): a design ``Φ`` with its gradient-norm penalty ``G``
and margin matrix ``R`` — exact (dual), Nyström centres and random Fourier features.  The exact
and Nyström bases take their inputs' namespace and device (the CPU and the device estimators
build them here: one definition).

The penalised least-squares problem on a basis is :class:`lssvm_cvx.linalg.penalized.PenalizedLS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..checks import check_option
from ..exceptions import HyperparameterError
from ..linalg.arrays import namespace_or_numpy
from ..linalg.penalized import CHUNK_ELEMS
from .gradient_norm import model_kernel, normalized_grams

__all__ = [
    "Basis",
    "basis_transform",
    "MARGINS",
    "MARGIN_JITTER",
    "margin_matrix",
    "exact_basis",
    "nystroem_basis",
    "choose_centres",
    "rff_params",
    "rff_gradient_gram",
    "rff_basis",
]


@dataclass
class Basis:
    """A design ``Phi`` (N × m) with its gradient-norm penalty ``G`` (m × m).

    ``kind`` is ``"exact"`` (centres = training rows), ``"nystroem"`` or ``"rff"``;
    ``transform(X)`` evaluates the design at new (standardised) inputs; ``params`` holds what
    is needed to rebuild ``transform`` after saving (arrays and numbers only).
    """

    kind: str
    Phi: np.ndarray
    G: np.ndarray
    params: dict[str, Any]
    #: margin matrix of the ν term (None: identity)
    R: np.ndarray | None = None

    @property
    def m(self) -> int:
        return self.Phi.shape[1]

    def transform(self, X: np.ndarray) -> np.ndarray:
        return basis_transform(self.kind, self.params, X)


def basis_transform(kind: str, params: dict[str, Any], X: np.ndarray) -> np.ndarray:
    """Evaluate a basis described by ``(kind, params)`` at standardised inputs ``X``."""
    if kind in ("exact", "nystroem"):
        return model_kernel(X, params["centres"], gamma=params["gamma"], form="normalized",
                            n_features=params["p"])
    if kind == "rff":
        Z = X @ params["W"]
        Z += params["offset"]
        np.cos(Z, out=Z)
        Z *= np.sqrt(2.0 / params["W"].shape[1])
        return Z
    raise HyperparameterError(f"unknown basis kind {kind!r}")


#: jitter added to the kernel matrix when it is the margin matrix (keeps it positive definite)
MARGIN_JITTER = 1e-6
#: the margin terms: "alpha" (eq. 9's ||α||²) and "rkhs" (α'Kα = ||w||², the LS-SVM margin)
MARGINS = ("alpha", "rkhs")


def margin_matrix(K: np.ndarray, margin: str) -> np.ndarray | None:
    """The margin matrix of the ν term: None (the identity) for ``"alpha"``, ``K + 1e-6 I``
    for ``"rkhs"`` (in ``K``'s namespace)."""
    if check_option(margin, MARGINS, "margin") == "alpha":
        return None
    xp, device, numpy = namespace_or_numpy(K)       # "rkhs"
    if not numpy:
        return K + MARGIN_JITTER * xp.eye(int(K.shape[0]), dtype=K.dtype, device=device)
    R = K.copy()
    R[np.diag_indices_from(R)] += MARGIN_JITTER
    return R


def exact_basis(X: np.ndarray, gamma: float, *, p: int, c: int, margin: str = "alpha") -> Basis:
    """The dual basis of eq. (8): ``Φ = K(X, X)``, ``G = G̃(X, X)`` (normalised form) and the
    margin matrix (``I`` for ``"alpha"``, ``K + 1e-6 I`` for ``"rkhs"``)."""
    K, G = normalized_grams(X, gamma=gamma, n_features=p, dim=c)
    return Basis("exact", K, G, {"centres": X, "gamma": float(gamma), "p": p, "c": c},
                 margin_matrix(K, margin))


def nystroem_basis(X: np.ndarray, gamma: float, *, p: int, c: int, centres: np.ndarray,
                   margin: str = "alpha") -> Basis:
    """``Φ = K(X, Z)`` for Nyström centres ``Z`` (``f = Σ_j β_j k(·, z_j)``), ``G = G̃(Z, Z)`` and
    the margin matrix ``I`` or ``K(Z, Z) + 1e-6 I``: the same model and regularizer as the dual
    with the centres restricted to ``Z``.  The centres' distances are formed once (``X is
    centres``: the design is ``K(Z, Z)`` itself)."""
    KZ, G = normalized_grams(centres, gamma=gamma, n_features=p, dim=c)
    Phi = KZ if X is centres else model_kernel(X, centres, gamma=gamma, form="normalized",
                                               n_features=p)
    return Basis("nystroem", Phi, G, {"centres": centres, "gamma": float(gamma), "p": p, "c": c},
                 margin_matrix(KZ, margin))


def rff_params(gamma: float, *, p: int, d: int, n_components: int, random_state: Any) -> dict[str, Any]:
    """The parameters of :func:`rff_basis` (``RBFSampler`` weights and offsets) for ``d`` inputs."""
    from sklearn.kernel_approximation import RBFSampler

    rbf = RBFSampler(gamma=gamma / p, n_components=int(n_components), random_state=random_state)
    rbf.fit(np.zeros((1, d)))
    return {"W": np.ascontiguousarray(rbf.random_weights_), "offset": np.asarray(rbf.random_offset_),
            "gamma": float(gamma), "p": p}


def choose_centres(X: np.ndarray, m: int, random_state: Any) -> np.ndarray:
    """``m`` Nyström centres picked by :class:`sklearn.kernel_approximation.Nystroem` (a
    uniform random subset of the rows; the kernel does not influence the choice)."""
    from sklearn.kernel_approximation import Nystroem

    m = min(int(m), X.shape[0])
    nys = Nystroem(kernel="rbf", gamma=1.0, n_components=m, random_state=random_state).fit(X)
    return np.ascontiguousarray(nys.components_)


def rff_gradient_gram(X: np.ndarray, W: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Data-averaged gradient Gram of random Fourier features ``φ_j(x) = sqrt(2/D) cos(w_j'x + b_j)``:
    ``G = (S'S/N) ∘ (W'W)`` with ``S_ij = sqrt(2/D) sin(w_j'x_i + b_j)``, so that
    ``θ'Gθ = (1/N) Σ_i ||∇f(x_i)||²``.

    The integral of eq. (40) over ``R^d`` diverges for a finite sum of cosines, so the random
    Fourier path measures the gradient norm against the data distribution instead of the
    Lebesgue measure (a Monte Carlo version of ``∫||∇f||² p(x) dx``).
    """
    D = W.shape[1]
    StS = np.zeros((D, D))
    step = max(1, CHUNK_ELEMS // D)
    for s in range(0, X.shape[0], step):
        S = X[s:s + step] @ W
        S += offset
        np.sin(S, out=S)
        StS += S.T @ S
    StS *= 2.0 / D / X.shape[0]
    return StS * (W.T @ W)


def rff_basis(X: np.ndarray, gamma: float, *, p: int, n_components: int, random_state: Any,
              G_rows: np.ndarray | None = None) -> Basis:
    """Random Fourier features of the eq. (44) kernel from :class:`sklearn.kernel_approximation.
    RBFSampler` (``gamma = γ/p``) and their data-averaged gradient Gram (:func:`rff_gradient_gram`
    over ``G_rows``, default ``X``)."""
    from sklearn.kernel_approximation import RBFSampler

    rbf = RBFSampler(gamma=gamma / p, n_components=int(n_components), random_state=random_state)
    rbf.fit(X[:1])
    W, off = np.ascontiguousarray(rbf.random_weights_), np.asarray(rbf.random_offset_)
    params = {"W": W, "offset": off, "gamma": float(gamma), "p": p}
    Phi = basis_transform("rff", params, X)
    G = rff_gradient_gram(X if G_rows is None else G_rows, W, off)
    return Basis("rff", Phi, G, params)
