"""The penalised least-squares engine: an unpenalised bias, a design ``Φ`` and quadratic
penalties, with exact leave-one-out by the hat matrix and one-weight paths from one
(generalised) eigendecomposition.

The normalised problem (§1.3)
-----------------------------
Every path (dual, Nyström, random Fourier features) is a penalised least-squares problem in a
design ``Φ`` (``N × m``: the Gram ``K(X, X)`` in the dual, ``K(X, Z)`` for ``m`` Nyström
centres ``Z``, or random Fourier features) with an unregularised bias, on standardised targets::

    J(θ, b) = ||y - Φθ - b 1||² + μ s_G θ'Gθ + ν s_R θ'Rθ,                         (N1)

``G`` the gradient-norm Gram of the centres (:mod:`lssvm_cvx.terms.gradient_norm`, normalised
form: unit diagonal) or, for random Fourier features, the data-averaged gradient Gram (see
:func:`lssvm_cvx.terms.gradient_basis.rff_gradient_gram`).  ``R`` is the margin matrix of the L2 term: ``I`` (``margin="alpha"``,
eq. 9's ``||α||²`` as printed) or the kernel matrix of the centres plus ``1e-6 I``
(``margin="rkhs"``: ``α'Kα = ||w||²``, the margin of the LS-SVM, which the note names for the
classifier in §1.1 item 1b); for random Fourier features ``R = I`` is ``||w||²`` itself.  With
``Φ_c`` the column-centred design and ``C = Φ_c'Φ_c / N`` (the Hessian of the mean fit term
after eliminating the bias),

    s_G = MU_UNIT · tr(C) / tr(G),        s_R = NU_UNIT · tr(C) / tr(R),      MU_UNIT = NU_UNIT = 1.

(N1) *is* the note's eq. (9) with ``μ_9 = μ s_G`` and ``ν_9 = ν s_R``
(:meth:`PenalizedLS.paper_weights`).  The code works with (N1)/N, whose penalty weights are
``ρ_G = s_G/N`` and ``ρ_R = s_R/N``.

Why these scalings: :mod:`lssvm_cvx.selection.auto` (the search that tunes μ and ν).

Solution: ``(C + μρ_G G + νρ_R R) θ = Φ_c' y_c / N``, ``b = ȳ - mean(Φ) θ``.

Named penalties
---------------
(N1) is the case ``{"mu": G, "nu": R}`` of any set of named penalties (issue 30, step 1)::

    J(θ, b)/W = (1/W) Σ_i s_i (y_i - φ_i'θ - b)² + Σ_k w_k ρ_k θ'P_kθ,   ρ_k = tr(C)/(W tr P_k),

the one normaliser rule of μ and ν (``tr I = m``).  A penalty declared positive definite (the
identity always is; the Auto note's ``R``) needs a positive weight and takes its path in ν's
form below; any other (PSD, possibly singular: ``G``, a roughness penalty) in μ's form.  The
LS-SVM approximations carry one identity penalty, ``{"ridge": I}`` with ``w ρ = 1/(γN)``.

Exact leave-one-out
-------------------
The fitted values are ``ŷ = S y`` with hat matrix ``S = 11'/N + Φ_c A^{-1} Φ_c' / N``, ``A`` the
matrix above, so leaving observation ``i`` out of the fit term (basis and penalty matrices
fixed) gives the residual ``r_i = (y_i - ŷ_i) / (1 - S_ii)`` exactly (Sherman-Morrison; the same
identity as for ridge regression).  ``tests/test_auto_tuning.py`` checks it against ``N``
brute-force refits (:mod:`lssvm_cvx.linalg.refits`).  A set ``V`` of rows leaving together
gives the block form ``r_V = (I - S_VV)⁻¹(y_V - ŷ_V)`` (:meth:`PenalizedLS.kfold_residuals`),
and ``tr S = Σ_i S_ii`` gives generalised cross-validation (:meth:`PenalizedLS.gcv`).

Sweeps from one decomposition
-----------------------------
(:meth:`PenalizedLS.path`, for any named weight; the Auto note's two:)

* **μ path** (fixed ν): the generalised eigendecomposition ``ρ_G G V = B V Θ`` with
  ``B = C + νρ_R R``, ``V'BV = I``, gives ``A(μ)^{-1} = V diag(1/(1 + μθ)) V'``; with ``P = Φ_c V``
  and ``q = P'y_c/N`` every μ costs O(N m): ``ŷ_c = P (q ∘ w)``, ``S_ii = 1/N + (P∘P) w / N``.
* **ν path** (fixed μ): ``(C + μρ_G G) U = R U diag(λ)``, ``U'RU = I``, gives ``A(ν)^{-1} =
  U diag(1/(λ + νρ_R)) U'``, the same formulas.

The search over (γ, μ, ν) that uses these paths, and its cost, is
:func:`lssvm_cvx.selection.auto.auto_search`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import array_api_compat as aac
import numpy as np
from numpy.typing import ArrayLike

from ..checks import as_float64, check_number, check_option
from ..exceptions import HyperparameterError, InputError, InputTypeError, NotSupportedError
from .arrays import (ArrayCholesky, check_finite, check_memory, factor_spd, float_dtype, geneig, namespace_of,
                     namespace_or_numpy, solve_triangular, take_rows, to_numpy)
from .cholesky import Cholesky
from .penalties import normalizer, penalty_set
from .problem_checks import check_targets
from .scores import (block_residuals, gcv_score, leverage_residuals, loo_score,
                     path_fit_residuals, path_residuals)

__all__ = [
    "CHUNK_ELEMS",
    "PenalizedLS",
    "PathResult",
    "Fit",
]

#: elements per row chunk of an N × m product (rows = this / m, ≈ 32 MB of float64 per chunk)
CHUNK_ELEMS = 4_000_000


@dataclass
class PathResult:
    """LOO scores along one path (μ or ν) at fixed other hyperparameters."""

    name: str
    values: np.ndarray
    scores: np.ndarray
    fixed: dict[str, float]

    @property
    def best(self) -> tuple[float, float]:
        k = int(np.nanargmin(self.scores))
        return float(self.values[k]), float(self.scores[k])


class PenalizedLS:
    """Problem (N1) for one basis, with any named quadratic penalties: exact LOO, a path of any
    one weight from one decomposition, fit — on NumPy or on any array-API namespace and device
    (PyTorch on the CPU or CUDA, CuPy, ``array-api-strict``).

    The penalties are the Auto note's ``μ ρ_G G + ν ρ_R R`` by default (``G``, ``R``), or any
    named set ``Σ_k w_k ρ_k P_k`` (``penalties``; issue 30, step 1), each with the one
    normaliser rule ``ρ_k = tr(C)/(W tr P_k)`` (:mod:`lssvm_cvx.linalg.penalties`) and a path
    form chosen by whether the penalty is declared positive definite (ν's form, below);
    the LS-SVM approximations carry one identity penalty.

    The arrays stay in their namespace and on their device; only the paths' scores come back
    as NumPy.  The design is centred and multiplied in blocks of ``block_rows`` rows (never a
    second N × m array).  On NumPy the SPD solve is :class:`~lssvm_cvx.linalg.cholesky.Cholesky`
    (LAPACK, with its condition estimate) and the generalised eigenproblem of a path LAPACK's
    ``sygvd``; elsewhere :func:`~lssvm_cvx.linalg.arrays.factor_spd` (an exact reciprocal
    condition number) and the Cholesky reduction of :func:`~lssvm_cvx.linalg.arrays.geneig`
    (issue 30 step 5: this class replaced the device twin ``DevicePenalizedLS``).

    Parameters
    ----------
    Phi : array of shape (N, m)
        Design.
    Y : array of shape (N,) or (N, T)
        Targets (several columns share every decomposition).
    G : array of shape (m, m) or None
        Gradient-norm penalty of the weight ``mu``, symmetric PSD (the Auto note's; None with
        ``penalties``).
    R : array of shape (m, m) or None, default=None
        Margin matrix of the weight ``nu``, symmetric positive definite; None for the identity
        (eq. 9's ``||α||²``).
    sample_weight : array of shape (N,) or None, default=None
        Positive weights ``s_i`` of the observations in the fit term (``Σ s_i r_i²``; None: all
        ones).  ``W = Σ s_i`` takes the place of N everywhere (so integer weights are the same
        problem as repeated rows): the bias and the centring become weighted means,
        ``C = Φ_c'SΦ_c/W``, and the exact LOO residual (observation i leaves the fit term) is
        ``(y_i - ŷ_i)/(1 - S_ii)`` with ``S_ii = s_i/W + s_i φ_c,i'A^{-1}φ_c,i/W``.
    penalties : mapping of str to array of shape (m, m) or None, optional
        Named symmetric PSD penalties instead of ``G`` and ``R`` (None: the identity).  The
        weights are then given by these names (``fit(lam=0.1)``, ``path("lam", values)``).
    definite : iterable of str, default=()
        The names of ``penalties`` that are positive definite (the identity always is): their
        weight must be positive and their path is taken in ν's form.
    block_rows : int or None, default=None
        Rows of the centred design formed at a time (None: :data:`CHUNK_ELEMS` / m, ≈ 32 MB of
        float64).

    Notes
    -----
    Inputs that are not arrays of an array-API library other than NumPy (lists, NumPy arrays)
    are converted to NumPy float64; other arrays must share one namespace and device and be
    float32 or float64.
    """

    #: the observations' weights (None: unweighted)
    w: Any

    def __init__(self, Phi: Any, Y: Any, G: Any = None, R: Any = None, sample_weight: Any = None,
                 *, penalties: Mapping[str, Any] | None = None, definite: Iterable[str] = (),
                 block_rows: int | None = None):
        named, pd, labels = penalty_set(G, R, penalties, definite)
        xp, device, numpy = namespace_or_numpy(Phi, Y, sample_weight, *named.values())
        foreign = not numpy
        if not foreign:        # NumPy: read and checked here (NaN or a string crashed or
            Phi = as_float64(Phi, "the design Phi", error=InputTypeError)  # answered NaN
            check_finite(np, "the design Phi", Phi)    # until the twenty-fourth session)
        if Phi.ndim != 2:
            raise InputError(f"the design must be (N, m), got shape {tuple(Phi.shape)}")
        check_targets(Y, int(Phi.shape[0]))
        self._setup(Phi.shape[0], Phi.shape[1], (named, pd, labels),
                    *(a for a in (Phi, Y) if a is not None), namespace=(xp, device, numpy))
        xp = self.xp
        self.Phi = Phi
        self.block_rows = (max(1, CHUNK_ELEMS // max(self.m, 1)) if block_rows is None
                           else max(1, int(block_rows)))
        if sample_weight is not None:
            w = (np.asarray(sample_weight, dtype=np.float64).reshape(-1) if not foreign
                 else xp.reshape(xp.asarray(sample_weight, dtype=self.dtype), (-1,)))
            if (tuple(w.shape) != (self.N,) or not bool(xp.all(xp.isfinite(w)))
                    or bool(xp.any(w <= 0))):
                raise InputError(f"sample_weight must be {self.N} finite weights > 0")
            self.w = w
            self.W = float(xp.sum(w))
            self.phi_mean = (w @ Phi) / self.W
        else:
            self.phi_mean = xp.mean(Phi, axis=0)
        C = xp.zeros((self.m, self.m), dtype=self.dtype, device=self.device)
        for wb, B in self._design_blocks():
            C = C + xp.matrix_transpose(B) @ (B if wb is None else wb * B)
        C = C / self.W
        self._finish(C, float(xp.sum(xp.linalg.diagonal(C))))
        if Y is not None:
            self._bind(Y)

    def _bind(self, Y: Any) -> None:
        """The targets' part of the normal equations: ``ȳ``, ``Y_c`` and ``Φ_c'S y_c/W``."""
        xp = self.xp
        if not aac.is_numpy_namespace(xp):
            namespace_of(self.Phi, Y)    # the targets in the design's namespace and device
        self._targets(np.asarray(Y, dtype=np.float64) if aac.is_numpy_namespace(xp) else Y)
        self.y_mean = (xp.mean(self.Y, axis=0) if self.w is None
                       else (self.w @ self.Y) / self.W)
        self.Yc = self.Y - self.y_mean
        rhs = xp.zeros((self.m, int(self.Y.shape[1])), dtype=self.dtype, device=self.device)
        for wb, B, _, Ycb in self._loo_blocks():
            rhs = rhs + xp.matrix_transpose(B if wb is None else wb * B) @ Ycb
        self.rhs = rhs / self.W

    def bind(self, Y: Any) -> PenalizedLS:
        """The same problem with the targets ``Y`` (the design's part — ``C``, the normalisers, the
        last Cholesky factor — shared; one O(N m) pass)."""
        check_targets(Y, self.N)         # (the constructor checks its own before _setup)
        new = copy.copy(self)
        new._bind(Y)
        return new

    def _setup(self, n_rows: int, n_cols: int,
               penalty_set: tuple[dict[str, Any], frozenset[str], dict[str, str]], *arrays: Any,
               namespace: tuple[Any, Any, bool] | None = None) -> None:
        """Namespace, dtype and the penalty matrices (every constructor; ``penalty_set`` from
        :func:`penalty_set`); ``arrays`` the other inputs that share the namespace
        (``namespace``: already detected, ``(xp, device, numpy)``)."""
        named, self.definite, self.labels = penalty_set
        xp, self.device, numpy = (namespace_or_numpy(*arrays, *named.values())
                                  if namespace is None else namespace)
        if numpy:                        # lists and NumPy arrays: float64
            named = {k: None if P is None else as_float64(P, f"the penalty {k!r}", error=InputTypeError)
                     for k, P in named.items()}
            check_finite(np, "the penalty matrices", *(P for P in named.values() if P is not None))
        given = [P for P in named.values() if P is not None]
        if not numpy:                    # off NumPy: lists among the penalties refused by name
            namespace_of(*arrays, *given)
        self.xp = xp
        self.dtype = float_dtype(xp, *arrays, *given)
        self.N, self.m = int(n_rows), int(n_cols)
        for k, P in named.items():
            if P is not None and tuple(P.shape) != (self.m, self.m):
                raise InputError(f"the penalty {self.labels[k]} must be {self.m} × {self.m} (the "
                                 f"design's columns), got shape {tuple(P.shape)}")
        self.basis: Any = None  # the basis it was built from, when a caller records it
        self.w = None
        self.W = float(self.N)
        self.loo_rows: np.ndarray | None = None   # None: every row
        self._factors: list[Any] = [None]   # the last (weights, factor), shared by bind()
        #: the named penalty matrices, symmetrised (None: the identity)
        self.P: dict[str, Any] = {k: None if P is None else 0.5 * (P + xp.matrix_transpose(P))
                                  for k, P in named.items()}

    @property
    def names(self) -> list[str]:
        """The penalties' names, in the order of positional weights."""
        return list(self.P)

    def _targets(self, Y: Any) -> None:
        """``Y`` as an (N, T) array (``single``: it was a vector)."""
        if Y.ndim not in (1, 2) or int(Y.shape[0]) != self.N:
            raise InputError(f"Y must be (N,) or (N, T) with the N = {self.N} rows of the design, "
                             f"got shape {tuple(Y.shape)}")
        self.single = Y.ndim == 1
        self.Y = Y[:, None] if self.single else Y

    def _finish(self, C: Any, trC: float) -> None:
        """``C`` and the normalisers ``ρ_k = tr(C)/(W tr P_k)`` (every constructor)."""
        xp = self.xp
        self.C = 0.5 * (C + xp.matrix_transpose(C))
        #: per penalty, its weight's normaliser (N1 divided by W: per unit of the mean fit term)
        self.rho: dict[str, float] = {
            k: normalizer(trC, float(self.m) if P is None else float(xp.sum(xp.linalg.diagonal(P))),
                           self.W, f"{self.labels[k]} ({k})")
            for k, P in self.P.items()}

    def _from_shifted_sums(self, S: Any, a: Any, c: Any, e: Any, shift: Any) -> None:
        """The normal equations from sums about a provisional feature mean ``shift`` (the
        streamed constructors): ``S = Σ(φ-s)(φ-s)'``, ``a = Σ(φ-s)``, ``c = Σ(φ-s)y'``,
        ``e = Σy`` give ``C = (S - aa'/N)/N`` and ``Φ_c'y_c/N = (c - ae'/N)/N``."""
        xp, n = self.xp, self.W
        self.phi_mean = shift + a / n
        self.y_mean = e / n
        C = (S - a[:, None] * a[None, :] / n) / n
        self._finish(C, float(xp.sum(xp.linalg.diagonal(C))))
        self.rhs = (c - a[:, None] * e[None, :] / n) / n

    def _design_blocks(self) -> Iterator[tuple[Any, Any]]:
        """``(s, Φ_c)`` block by block (``s`` the rows' weights as a column, None unweighted)."""
        for s in range(0, self.N, self.block_rows):
            e = min(s + self.block_rows, self.N)
            yield None if self.w is None else self.w[s:e, None], self.Phi[s:e, ...] - self.phi_mean

    def _loo_blocks(self) -> Iterator[tuple[Any, Any, Any, Any]]:
        """``(s, Φ_c, Y, Y_c)`` of the LOO rows block by block, ``s`` the rows' weights as a
        column (None when unweighted)."""
        for k, (wb, B) in enumerate(self._design_blocks()):
            s = k * self.block_rows
            yield wb, B, self.Y[s:s + B.shape[0], ...], self.Yc[s:s + B.shape[0], ...]

    @property
    def n_loo(self) -> int:
        """Rows on which the LOO residuals are evaluated."""
        return self.N if self.loo_rows is None else int(self.loo_rows.size)

    def normalised(self, **weights: Any) -> dict[str, Any]:
        """(N1)'s weights ``v_k = w_k/(W ρ_k)`` of the weights ``w_k`` of the unnormalised
        problem ``½ Σ s_i r_i² + ½ Σ w_k θ'P_kθ`` (floats or arrays of them; the LS-SVM's ridge
        has ``w = 1/γ``; :class:`~lssvm_cvx.linalg.primal.DesignDecomposition` has its own
        ``W``, which a scalar loss weight scales)."""
        return {k: w / (self.W * self.rho[k]) for k, w in weights.items()}

    def paper_weights(self, mu: float, nu: float) -> tuple[float, float]:
        """(μ, ν) of the note's eq. (9) equivalent to the normalised ones (module docstring)."""
        return float(mu) * self.W * self.rho["mu"], float(nu) * self.W * self.rho["nu"]

    def weights(self, *args: float, **named: float) -> dict[str, float]:
        """The penalties' weights by name: positional ones in the order of :attr:`names`, the
        rest by name, a penalty not given 0."""
        if len(args) > len(self.P):
            raise HyperparameterError(f"{len(args)} weights for the {len(self.P)} penalties "
                                      f"{self.names}")
        w = dict.fromkeys(self.P, 0.0)
        w.update({k: check_number(v, f"the weight of penalty {k!r}") for k, v in zip(self.P, args)})
        for k, v in named.items():
            check_option(k, self.names, "penalty")
            w[k] = check_number(v, f"the weight of penalty {k!r}")
        return w

    def matrix(self, *args: float, **named: float) -> Any:
        """``A = C + Σ_k w_k ρ_k P_k`` (the Auto note's ``C + μρ_G G + νρ_R R``)."""
        xp = self.xp
        A = self.C
        for k, wk in self.weights(*args, **named).items():
            P = self.P[k]
            A = A + (wk * self.rho[k]) * (xp.eye(self.m, dtype=self.dtype, device=self.device)
                                          if P is None else P)
        return A

    # paths -----------------------------------------------------------------------------
    def _reduce(self, fn: Callable[[Any, Any, Any, Any], Any]) -> Any:
        """``Σ fn(s, Φ_c, Y, Y_c)`` over the non-empty blocks of :meth:`_loo_blocks`."""
        total: Any = None
        for blk in self._loo_blocks():
            if int(blk[1].shape[0]):
                part = fn(*blk)
                total = part if total is None else total + part
        return total

    def _path(self, V: Any, W: Any, criterion: str) -> np.ndarray:
        """Criterion for every column of the weight matrix ``W`` (m × n_values), with
        ``A^{-1} = V diag(W[:, k]) V'``: the residuals are formed and scored block by block
        (``"gcv"``: the residual sums of squares and the traces ``Σ S_ii``, every row)."""
        xp, gcv = self.xp, criterion == "gcv"
        if gcv and self.n_loo != self.N:
            raise NotSupportedError("generalised cross-validation needs every row")
        q = xp.matrix_transpose(V) @ self.rhs  # q = P'y_c / N = V' Φ_c' y_c / N = V' rhs

        def block(wb: Any, B: Any, Yb: Any, Ycb: Any) -> Any:
            P = B @ V
            h = (1.0 / self.W) + ((P * P) @ W) / self.W  # (rows, n_vals)
            h = h if wb is None else wb * h
            if gcv:     # Σ over rows of the residuals² (mean over the columns) and of S_ii
                E = path_fit_residuals(Ycb, P, q, W)
                return xp.stack([xp.mean(xp.sum(E * E, axis=0), axis=0), xp.sum(h, axis=0)])
            return loo_score(path_residuals(Ycb, P, q, W, h), Yb, criterion) * int(B.shape[0])

        if gcv:
            sums = to_numpy(self._reduce(block)).astype(np.float64)
            return np.asarray(gcv_score(sums[0], self.N, self.N - sums[1]), dtype=np.float64)
        return to_numpy(self._reduce(block) / self.n_loo).astype(np.float64)

    def _grid(self, values: ArrayLike) -> tuple[np.ndarray, Any]:
        grid = np.asarray(values, dtype=np.float64).reshape(-1)
        return grid, self.xp.asarray(grid, dtype=self.dtype, device=self.device)

    def path(self, name: str, values: ArrayLike, fixed: Mapping[str, float] | None = None,
             criterion: str = "mse") -> PathResult:
        """LOO criterion (``criterion``: one of :data:`~lssvm_cvx.linalg.scores.SCORES`, or
        ``"gcv"``: generalised cross-validation, every row) for every value of the weight
        ``name``, the others at ``fixed`` (0 when not given), from one decomposition: ``(C + others) U = P U diag(λ)``, ``U'PU = I``,
        ``A^{-1} = U diag(1/(λ + ρw)) U'`` when the penalty is positive definite (ν's form;
        symmetric when ``P = I``), else ``ρP V = (C + others) V Θ``, ``V'(C + others)V = I``,
        ``A^{-1} = V diag(1/(1 + θw)) V'`` (μ's form).  Scores are ``inf`` when the pencil's
        definite side is numerically singular."""
        check_option(name, self.names, "penalty")
        grid, g = self._grid(values)
        self.check_weights({name: grid})
        rest = {k: v for k, v in self.weights(**(fixed or {})).items() if k != name}
        others = self.matrix(**rest)
        definite = name in self.definite
        dec = (geneig(self.xp, others, self.P[name]) if definite
               else geneig(self.xp, self.rho[name] * self.P[name], others))
        if dec is None:
            return PathResult(name, grid, np.full(grid.size, np.inf), rest)
        lam, U = dec
        lam = self.xp.clip(lam, 0.0, None)  # PSD matrices: negative values are round-off
        W = (1.0 / (lam[:, None] + self.rho[name] * g[None, :]) if definite
             else 1.0 / (1.0 + lam[:, None] * g[None, :]))
        return PathResult(name, grid, self._path(U, W, criterion), rest)

    def mu_path(self, mus: ArrayLike, nu: float, criterion: str = "mse") -> PathResult:
        """LOO criterion for every μ at fixed ν (one generalised eigendecomposition)."""
        return self.path("mu", mus, {"nu": nu}, criterion)

    def nu_path(self, nus: ArrayLike, mu: float, criterion: str = "mse") -> PathResult:
        """LOO criterion for every ν at fixed μ (one symmetric eigendecomposition, generalised
        with respect to ``R`` when it is not the identity)."""
        return self.path("nu", nus, {"mu": mu}, criterion)

    # one setting -----------------------------------------------------------------------
    def check_weights(self, weights: Mapping[str, Any]) -> None:
        """Refuse, by name, weights (a value or an array of values per penalty) outside the
        penalties' domain: ``> 0`` for a positive-definite penalty (:attr:`definite`: its
        path divides by ``λ + ρ w``, its factor needs it), ``>= 0`` for the others."""
        if any(not np.all(np.asarray(v) > 0 if k in self.definite else np.asarray(v) >= 0)
               for k, v in weights.items()):
            need = " and ".join(f"{k} {'>' if k in self.definite else '>='} 0" for k in weights)
            got = ", ".join(f"{k}={v!r}" for k, v in weights.items())
            raise HyperparameterError(f"need {need}, got {got}")

    def _factor(self, weights: Mapping[str, float]) -> Cholesky | ArrayCholesky:
        self.check_weights(weights)
        xp = self.xp
        if not aac.is_numpy_namespace(xp):
            check_memory(self.m, self.dtype, 4.0, xp, self.device)
        key = tuple(weights.items())
        if self._factors[0] is None or self._factors[0][0] != key:
            terms = " + ".join(f"{k} {self.labels[k]}" for k in weights)
            values = ", ".join(f"{k} = {v:g}" for k, v in weights.items())
            self._factors[0] = (key, factor_spd(xp, self.matrix(**weights),
                                                name=f"C + {terms} ({values})"))
        return self._factors[0][1]

    def _leverages(self, chol: Cholesky | ArrayCholesky, wb: Any, B: Any) -> Any:
        """The leverages of one block's rows, from ``L^{-1}Φ_c'``."""
        Z = solve_triangular(self.xp, chol.L, self.xp.matrix_transpose(B))
        h = (1.0 + self.xp.sum(Z * Z, axis=0)) / self.W
        return h if wb is None else wb[:, 0] * h

    def _held_out(self, chol: Cholesky | ArrayCholesky, theta: Any, wb: Any, B: Any, Ycb: Any
                  ) -> tuple[Any, Any]:
        """The exact LOO residuals and leverages of one block's rows."""
        h = self._leverages(chol, wb, B)
        return leverage_residuals(Ycb - B @ theta, h), h

    def _solved(self, weights: Mapping[str, float]) -> tuple[Any, Any]:
        chol = self._factor(weights)  # A = L L' and θ at the weights
        return chol, chol.solve(self.rhs)

    def solve(self, *args: float, **named: float) -> tuple[Any, Any]:
        """``(θ, b)`` at the weights of :meth:`fit` without the LOO residuals: θ (m, T), b (T,)
        (the Cholesky factor of ``A`` is kept for the next question at the same weights)."""
        theta = self._solved(self.weights(*args, **named))[1]
        return theta, self.y_mean - self.phi_mean @ theta

    def rcond(self, *args: float, **named: float) -> float:
        """The reciprocal condition number of ``A`` at the weights (:attr:`Fit.rcond`)."""
        return float(self._factor(self.weights(*args, **named)).rcond)

    def kfold_residuals(self, folds: Any, *args: float, cover: bool = False, **named: float) -> Any:
        """Exact held-out residuals of disjoint row sets ``folds`` at the weights of :meth:`fit`
        (a set leaves the fit term; basis, penalties and normalisers kept): ``r_V = (I -
        S_VV)⁻¹(y_V - ŷ_V)``, ``S_VV = (11' + Z_V'Z_V) S_V/W``, ``Z_V = L⁻¹Φ_c,V'``
        (:func:`~lssvm_cvx.linalg.scores.block_residuals`).  NaN for a row in no set (NumPy;
        elsewhere, or with ``cover``, the sets must cover every row); the shape of ``Y``."""
        if self.loo_rows is not None:
            raise NotSupportedError("k-fold residuals need the whole design in memory (PenalizedLS), "
                                    "not a streamed or subsampled one")
        xp = self.xp
        chol, theta = self._solved(self.weights(*args, **named))
        E = xp.concat([Ycb - B @ theta for _, B, _, Ycb in self._loo_blocks()], axis=0)

        def block(V: Any) -> Any:
            Z = solve_triangular(xp, chol.L, xp.matrix_transpose(take_rows(xp, self.Phi, V)
                                                                 - self.phi_mean))
            S = (1.0 + xp.matrix_transpose(Z) @ Z) / self.W
            S = S if self.w is None else S * take_rows(xp, self.w, V)[None, :]
            return xp.eye(int(S.shape[0]), dtype=S.dtype, device=self.device) - S

        R = block_residuals(E, folds, block, cover=cover)
        return R[:, 0] if self.single else R

    def gcv(self, *args: float, **named: float) -> float:
        """Generalised cross-validation ``N ||y - ŷ||² / tr(I - S)²`` at the weights of
        :meth:`fit`, ``tr S = Σ_i S_ii`` (:func:`~lssvm_cvx.linalg.scores.gcv_score`: the
        residuals unweighted, their mean over the columns of ``Y``)."""
        if self.n_loo != self.N:
            raise NotSupportedError("generalised cross-validation needs every row")
        xp = self.xp
        chol, theta = self._solved(self.weights(*args, **named))

        def block(wb: Any, B: Any, Yb: Any, Ycb: Any) -> Any:  # Σ residual² per column, Σ S_ii
            return xp.concat([xp.sum((Ycb - B @ theta) ** 2, axis=0),
                              xp.sum(self._leverages(chol, wb, B))[None]])

        sums = to_numpy(self._reduce(block)).astype(np.float64)
        return float(gcv_score(float(np.mean(sums[:-1])), self.N, self.N - float(sums[-1])))

    def fit(self, *args: float, **named: float) -> Fit:
        """Solve (N1) at the weights (positional in the order of :attr:`names`, or by name:
        ``fit(mu, nu)``, ``fit(lam=0.1)``) by one Cholesky factorisation; LOO residuals from
        ``L^{-1}Φ_c'``."""
        xp = self.xp
        weights = self.weights(*args, **named)
        chol, theta = self._solved(weights)  # theta (m, T)
        b = self.y_mean - self.phi_mean @ theta
        loos, hs = zip(*(self._held_out(chol, theta, wb, B, Ycb)
                         for wb, B, _, Ycb in self._loo_blocks()))
        return Fit(theta=theta, b=b, loo=xp.concat(loos, axis=0), leverage=xp.concat(hs),
                   chol=chol, weights=weights, problem=self)

    def fit_score(self, fit: Fit, criterion: str) -> float:
        """The LOO criterion of a fit."""
        Y = take_rows(self.xp, self.Y, self.loo_rows)
        return float(loo_score(fit.loo[:, :, None], Y, criterion)[0])

    def loo_residuals(self, *args: float, **named: float) -> Any:
        """Exact LOO residuals ``y_i - f^{(-i)}(x_i)`` at the weights of :meth:`fit` (shape of
        ``Y`` as given; the LOO rows)."""
        R = self.fit(*args, **named).loo
        return R[:, 0] if self.single else R


@dataclass
class Fit:
    """A solved instance of (N1): coefficients, bias, exact LOO residuals and leverages (on the
    problem's LOO rows), in the problem's namespace, and the Cholesky factorisation of ``A``."""

    theta: Any
    b: Any
    loo: Any
    leverage: Any
    chol: Cholesky | ArrayCholesky
    #: the penalties' weights, by name
    weights: dict[str, float]
    problem: PenalizedLS = field(repr=False)

    @property
    def mu(self) -> float:
        """The Auto note's normalised μ."""
        return self.weights["mu"]

    @property
    def nu(self) -> float:
        """The Auto note's normalised ν."""
        return self.weights["nu"]

    @property
    def rcond(self) -> float:
        """The reciprocal condition number of ``A`` (LAPACK's estimate on NumPy, exact
        elsewhere: :func:`~lssvm_cvx.linalg.arrays.factor_spd`)."""
        return self.chol.rcond

    def predict(self, Phi_new: Any) -> Any:
        return Phi_new @ self.theta + self.b

    def jackknife_influence(self) -> Any:
        """``Q = A^{-1} Φ_c' diag(r)/N`` (m × N, first target): the LOO model at a new point is
        ``f^{(-i)}(x) = f(x) - r_i/N - (φ_c(x)'Q)_i`` (Sherman-Morrison on (N1))."""
        pr = self.problem
        if pr.w is not None:
            raise InputError("the jackknife influence assumes unweighted observations")
        if pr.n_loo != pr.N:
            raise InputError("the jackknife influence needs the LOO residuals of every row")
        xp = pr.xp
        parts = [self.chol.solve(xp.matrix_transpose(B)) for _, B, _, _ in pr._loo_blocks()]
        return xp.concat(parts, axis=1) * (self.loo[:, 0] / pr.W)[None, :]

