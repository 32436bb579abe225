"""The terms of a composition: a checked ``{key: (Term, weight)}`` mapping.

:func:`check_terms` validates what a user passes as ``terms=`` (keys are identifiers other
than the composition's variable names, entries are ``(Term, weight ≥ 0)`` pairs);
:func:`nonconvex_keys` and :func:`refuse_nonconvex` find the terms that only a driver (GNC)
can minimise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..exceptions import HyperparameterError, TermError
from ..linalg.problem_checks import check_weight
from .base import Term
from .quadratic import RKHSNorm

__all__ = ["check_terms", "nonconvex_keys", "refuse_nonconvex"]

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"alpha", "b", "e", "xi", "sample_weight"}


def check_terms(terms: Any) -> dict[str, tuple[Term, float]]:
    """``terms`` as a checked ``{key: (Term, weight)}`` dict; raises naming the bad entry.

    Parameters
    ----------
    terms : mapping of str to (Term, float) or None
        The composition's terms; ``None`` is ``{"rkhs": (RKHSNorm(), 1.0)}``.

    Returns
    -------
    dict of str to (Term, float)
        Keys checked (identifiers, not a reserved variable name), terms checked, weights as
        finite floats ``≥ 0``.
    """
    if terms is None:
        return {"rkhs": (RKHSNorm(), 1.0)}
    if not isinstance(terms, Mapping):
        raise HyperparameterError(
            f"terms must be a mapping name -> (Term, weight), got {type(terms).__name__}")
    out: dict[str, tuple[Term, float]] = {}
    for key, entry in terms.items():
        if not isinstance(key, str) or not _KEY.match(key) or key in _RESERVED:
            raise HyperparameterError(
                f"term key {key!r} must be an identifier other than {sorted(_RESERVED)}")
        if not (isinstance(entry, tuple) and len(entry) == 2):
            raise HyperparameterError(f"terms[{key!r}] must be a (Term, weight) pair, got a "
                                      f"{_kind(entry)}")
        term, weight = entry
        if not isinstance(term, Term):
            hint = (" (a matrix P goes in as Quadratic(P), the term ½α'Pα)"
                    if hasattr(term, "shape") or isinstance(term, (list, tuple)) else "")
            raise TermError(f"terms[{key!r}]: a {_kind(term)} is not a lssvm_cvx.terms.Term"
                            + hint)
        w = check_weight(key, weight)
        out[key] = (term, w)
    return out


def _kind(obj: Any) -> str:
    """A short description of ``obj`` for a message: its type, and an array's shape (never
    the array itself)."""
    shape = getattr(obj, "shape", None)
    return type(obj).__name__ + (f" of shape {tuple(shape)}" if shape is not None else "")


def nonconvex_keys(terms: Mapping[str, tuple[Term, float]]) -> list[str]:
    """The keys of the non-convex terms (``term.convex`` False) of a checked ``terms`` dict.

    Parameters
    ----------
    terms : mapping of str to (Term, float)
        A checked ``{key: (term, weight)}`` dict.

    Returns
    -------
    list of str
        The keys whose term is not convex (they run through the GNC driver
        :func:`lssvm_cvx.selection.gnc_terms.gnc_fit`).
    """
    return [k for k, (t, _) in terms.items() if not t.convex]


def refuse_nonconvex(terms: Mapping[str, tuple[Term, float]], what: str) -> None:
    """Raise :class:`TermError` naming the non-convex terms when ``what`` (a cvxpy problem,
    a closed form) needs convex ones.

    Parameters
    ----------
    terms : mapping of str to (Term, float)
        A checked ``{key: (term, weight)}`` dict.
    what : str
        What needs convexity, for the message.
    """
    bad = nonconvex_keys(terms)
    if bad:
        names = ", ".join(f"{k!r} ({type(terms[k][0]).__name__})" for k in bad)
        raise TermError(f"{what} needs convex terms; term {names} is not convex: fit the "
                        "composition with lssvm_cvx.selection.gnc_terms.gnc_fit (graduated "
                        "non-convexity) or a composed estimator, which calls it")
