"""The closed-form engine's input checks (:func:`~lssvm_cvx.linalg.engine.decompose`, both
representations): bad input is refused here, by name, with an exception of the project's
hierarchy, before it reaches a factorisation.

Until the sixteenth session (2026-11-30) the engine took its inputs as given: a negative or NaN
weight, negative loss weights or a non-symmetric term matrix returned a solution (a wrong one:
the augmented system solved with ``P`` where the objective ``½α'Pα`` sees ``(P + P')/2``), and
a term object of :mod:`lssvm_cvx.terms` in place of a matrix, a wrong shape or wrong-length
targets crashed inside NumPy (``tests/test_engine_inputs.py``).

The checks cost O(N) on the Gram (its symmetry is spot-checked on three rows and columns: a
full check would be an N² pass beside the fit's Cholesky) and O(N²) on a term's matrix when it
is formed (where it is symmetrised, as :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` and
the terms' :func:`~lssvm_cvx.terms.base.check_quadratic` do).  A term's matrix is not checked
positive semi-definite here: that costs an eigendecomposition, of the fit's order, which the
terms of :mod:`lssvm_cvx.terms` have had already (``check_quadratic``); a caller handing the
engine matrices of its own owns that contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import array_api_compat as aac
import numpy as np

from ..checks import as_float64, check_grid, check_positive
from ..exceptions import InputError, InputTypeError
from .arrays import check_finite

__all__ = ["check_terms", "check_weight", "check_weights_array", "check_gram",
           "check_loss_weights", "checked_matrix", "check_targets"]

#: relative asymmetry of a Gram matrix's spot-checked rows that is refused
SYMMETRY_RTOL = 1e-7


def check_weight(name: str, w: Any) -> float:
    """``w`` as a float, refused (:class:`HyperparameterError`) unless one finite number
    ``>= 0`` (:func:`lssvm_cvx.checks.check_positive`: not a bool, a string or an array)."""
    return check_positive(w, f"the weight of term {name!r}", allow_zero=True)


def check_weights_array(name: str, values: Any) -> np.ndarray:
    """The values of a path of the weight ``name`` as a float vector, each checked as by
    :func:`check_weight` (:func:`lssvm_cvx.checks.check_grid`, flattened)."""
    return check_grid(values, f"the values of term {name!r}", allow_zero=True, flat=True)


def check_terms(terms: Mapping[str, Any], kinds: tuple[type, ...] = ()
                ) -> dict[str, tuple[Any, float]]:
    """``{name: (matrix, weight)}`` with each matrix an array, a callable, None (the RKHS norm
    or the identity) or an instance of ``kinds``, and each weight checked
    (:func:`check_weight`); else :class:`~lssvm_cvx.exceptions.InputTypeError` naming the
    term."""
    if not isinstance(terms, Mapping):
        raise InputTypeError(f"terms must be a mapping of name to (matrix, weight), got "
                             f"{type(terms).__name__}")
    out: dict[str, tuple[Any, float]] = {}
    for k, spec in terms.items():
        if not isinstance(spec, (tuple, list)) or len(spec) != 2:
            raise InputTypeError(f"term {k!r}: give (matrix, weight), got {spec!r}")
        P, w = spec
        if not (P is None or callable(P) or isinstance(P, kinds)
                or hasattr(P, "shape") or isinstance(P, (list, tuple))):
            raise InputTypeError(
                f"term {k!r}: its matrix must be an array, a callable returning one or None "
                f"(the RKHS norm){''.join(', a ' + c.__name__ for c in kinds)}; got a "
                f"{type(P).__name__} (a term of lssvm_cvx.terms goes to RegularizedLSSVM)")
        out[k] = (P, check_weight(k, w))
    return out


def check_gram(xp: Any, K: Any, what: str = "K") -> int:
    """``N``, refusing (:class:`InputError`) a ``K`` that is not a square matrix, holds NaN or
    inf on its spot-checked rows, or whose rows and columns ``0``, ``N // 2`` and ``N - 1``
    differ by more than :data:`SYMMETRY_RTOL` of their largest entry (one host synchronisation
    on a device)."""
    if not hasattr(K, "shape"):
        raise InputTypeError(f"{what} must be an array (NumPy or of an array-API namespace), "
                             f"got a {type(K).__name__}")
    shape = tuple(K.shape)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise InputError(f"{what} must be a square matrix, got shape {shape}")
    n = int(shape[0])
    idx = xp.asarray(sorted({0, n // 2, n - 1}), device=getattr(K, "device", None))
    rows, cols = xp.take(K, idx, axis=0), xp.matrix_transpose(xp.take(K, idx, axis=1))
    scale, gap = xp.max(xp.abs(rows)), xp.max(xp.abs(rows - cols))
    ok = xp.all(xp.isfinite(rows)) & xp.all(xp.isfinite(cols)) & (gap <= SYMMETRY_RTOL * scale)
    if not bool(ok):
        raise InputError(f"{what} must be a finite symmetric matrix (a Gram matrix): rows and "
                         f"columns differ by up to {float(gap):.3g} (scale {float(scale):.3g}) "
                         "or hold NaN or inf")
    return n


def check_loss_weights(s: Any, n: int) -> None:
    """Refuse (:class:`InputError`) loss weights that are not a scalar or ``N`` values, not
    finite, negative, or all zero."""
    shape = tuple(getattr(s, "shape", np.shape(s)))
    if shape not in ((), (n,)):
        raise InputError(f"the loss weights must be a scalar or {n} values, got shape {shape}")
    v, vxp = (s, aac.array_namespace(s)) if hasattr(s, "shape") else (
        as_float64(s, "the loss weights", error=InputTypeError), np)
    if not bool(vxp.all(vxp.isfinite(v)) & vxp.all(v >= 0) & vxp.any(v > 0)):
        raise InputError("the loss weights must be finite and >= 0, one or more > 0")


def checked_matrix(xp: Any, name: str, M: Any, n: int, **asarray: Any) -> Any:
    """A term's matrix ``M`` as an ``(n, n)`` array of ``xp`` (``asarray``: its dtype and
    device), symmetrised (``½M'M`` sees only ``(M + M')/2``); :class:`InputError` naming the term
    for another shape or NaN or inf."""
    try:
        A = xp.asarray(M, **asarray)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"term {name!r}: its matrix must be a real array ({exc})") from None
    if tuple(A.shape) != (n, n):
        raise InputError(f"term {name!r}: its matrix must be {n} × {n}, got shape "
                         f"{tuple(A.shape)}")
    check_finite(xp, f"term {name!r}: its matrix", A)
    return 0.5 * (A + xp.matrix_transpose(A))


def check_targets(Y: Any, n: int) -> None:
    """Refuse (:class:`InputError`) targets that are not ``(N,)`` or ``(N, T)`` or hold NaN or
    inf (one host synchronisation on a device); None (a streamed design's own targets)
    passes."""
    if Y is None:
        return
    shape = tuple(getattr(Y, "shape", np.shape(Y)))
    if len(shape) not in (1, 2) or shape[0] != n:
        raise InputError(f"Y must be (N,) or (N, T) with N = {n}, got shape {shape}")
    if hasattr(Y, "shape"):
        check_finite(aac.array_namespace(Y), "Y", Y)
    else:
        check_finite(np, "Y", np.asarray(Y, dtype=np.float64))
