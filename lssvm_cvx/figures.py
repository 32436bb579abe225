"""Slide-grade figures: one style for the package's figures and a figure of any formulation.

:func:`slide_style` is the style (a context manager over :func:`matplotlib.rc_context`): text of
at least 14 pt on the default 6.4 × 4.8 in figure, the Okabe–Ito colour-blind-safe palette as the
property cycle, thicker lines, no top or right spine.  :func:`save_figure` writes SVG or PNG by
the file's suffix (PNG at 200 dpi, twice the screen's, by default).  :func:`formulation_figure`
draws any registered formulation on its random instance (``lssvm-cvx figure NAME``)::

    from lssvm_cvx.figures import formulation_figure, save_figure, slide_style

    save_figure(formulation_figure("lssvm", n=60), "lssvm.svg")
    with slide_style(font_scale=1.5):
        ...  # a figure of your own in the same style

What the figure of a formulation shows is what the formulation itself offers, said in its
subtitle, never a model the package would reconstruct:

* its prediction on new inputs (``decision_function`` / ``predict``): the curve over a grid for
  1-D regression, the decision regions and boundary for 2-D classification;
* otherwise its values at the training points: ``fitted(values)`` (as the harness's
  :func:`~lssvm_cvx.harness.compare.fitted_values`), else ``y - e`` from the residual ``e`` of the
  paper's fit equation (``y ∘ (1 - e)`` for ±1 labels), else ``y - e_v`` from a validation or
  cross-validation residual ``e_v``;
* and for a formulation with none of these (the ℓ2-SVM's dual, the enclosing ball), its
  coefficients (``alpha``, ``beta``, ...) by training point.

Inputs of more dimensions are shown as fitted against observed values (regression) or decision
values by class (classification).  Ensembles and componentwise models are shown by their one
combined output; the subtitle names the per-node or per-component array it combines.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .checks import check_integer, check_positive
from .exceptions import HyperparameterError, InputError, NotSupportedError

__all__ = ["OKABE_ITO", "MAX_DPI", "slide_rc", "slide_style", "save_figure",
           "formulation_figure"]

#: Okabe & Ito (2008) colour-blind-safe palette, in the order of the property cycle (the
#: yellow last: it is faint on white)
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#000000",
             "#F0E442")

#: the highest resolution :func:`save_figure` accepts (a 6.4 × 4.8 in PNG at 1200 dpi is
#: already 44 megapixels)
MAX_DPI = 1200.0

#: PNG resolution by default: twice matplotlib's 100 dpi, sharp on a projector or a retina screen
PNG_DPI = 200.0


def slide_rc(font_scale: float = 1.0) -> dict[str, Any]:
    """The rcParams of :func:`slide_style`.

    Parameters
    ----------
    font_scale : float, default=1.0
        Multiplies every text size (base 16 pt, titles 18 pt, ticks and legends 14 pt).

    Returns
    -------
    dict
        rcParams for :func:`matplotlib.rc_context`.
    """
    from cycler import cycler

    s = check_positive(font_scale, "font_scale")
    return {
        "figure.figsize": (6.4, 4.8), "figure.dpi": 100, "savefig.dpi": PNG_DPI,
        "savefig.bbox": "tight", "savefig.pad_inches": 0.05,
        "font.size": 16 * s, "axes.titlesize": 16 * s, "figure.titlesize": 18 * s,
        "axes.labelsize": 16 * s, "xtick.labelsize": 14 * s, "ytick.labelsize": 14 * s,
        "legend.fontsize": 14 * s, "legend.frameon": False,
        "axes.prop_cycle": cycler(color=list(OKABE_ITO)),
        "axes.spines.top": False, "axes.spines.right": False, "axes.linewidth": 1.2,
        "axes.titleweight": "regular", "figure.titleweight": "bold",
        "lines.linewidth": 2.5, "lines.markersize": 7, "patch.linewidth": 1.2,
        "xtick.major.width": 1.2, "ytick.major.width": 1.2,
        "xtick.major.size": 5, "ytick.major.size": 5,
        "axes.grid": False, "image.cmap": "cividis",
    }


def slide_style(font_scale: float = 1.0) -> AbstractContextManager[Any]:
    """The slide style as a context manager: figures made inside it use it.

    Parameters
    ----------
    font_scale : float, default=1.0
        Multiplies every text size (see :func:`slide_rc`).

    Returns
    -------
    contextlib.AbstractContextManager
        :func:`matplotlib.rc_context` with :func:`slide_rc`.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> with slide_style(font_scale=1.2):
    ...     fig = Figure()
    ...     ax = fig.add_subplot()
    """
    import matplotlib

    rc: Any = slide_rc(font_scale)  # matplotlib's stubs type the keys as literals
    return matplotlib.rc_context(rc)


def save_figure(fig: Any, path: str | os.PathLike[str], *, dpi: float | None = None) -> Path:
    """Write ``fig`` as SVG or PNG, chosen by the suffix of ``path``, atomically.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or path-like
        Ends in ``.svg`` or ``.png`` (any case); the folder must exist.
    dpi : float or None, default=None
        Resolution (PNG; in an SVG only for rasterized parts); ``None`` is 200 dpi, twice
        the screen's.  At most :data:`MAX_DPI`.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    InputError
        ``path`` has another suffix, or cannot be written.
    HyperparameterError
        ``dpi`` is not a positive number up to :data:`MAX_DPI`.
    """
    out = Path(path)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise InputError(f"path must end in .svg or .png, got {str(out)!r}")
    res = PNG_DPI if dpi is None else check_positive(dpi, "dpi")
    if res > MAX_DPI:
        raise HyperparameterError(f"dpi must be at most {MAX_DPI:g}, got {dpi!r}")
    metadata = {"Date": None} if fmt == "svg" else {"Software": "lssvm-cvx"}
    if not out.parent.is_dir():
        raise InputError(f"path: cannot write in {out.parent} (no such folder)")
    import matplotlib

    from .harness.files import atomic_write

    def write(tmp: str) -> None:
        # the same figure gives the same SVG (ids are hashed with a fixed salt, no date)
        with matplotlib.rc_context({"svg.hashsalt": "lssvm-cvx"}):
            fig.savefig(tmp, format=fmt, dpi=res, metadata=metadata, bbox_inches="tight",
                        pad_inches=0.05)

    try:
        atomic_write(out, write)   # the package's one atomic write (flushed to disk)
    except OSError as exc:
        raise InputError(f"path: cannot write {out} ({exc.strerror or exc})") from None
    return out


# --- the figure of a formulation ------------------------------------------------------------
@dataclass
class _Values:
    """Model values the formulation offers, at ``X`` (grid, training or validation inputs)."""

    X: np.ndarray
    values: np.ndarray
    what: str  # the subtitle's words: what the values are
    on_grid: bool = False
    target: np.ndarray | None = None  # the observed targets at X (not for a grid)


def _solve(f: Any) -> tuple[Any, str]:
    """The closed form where the class has one (and this instance supports it), else CLARABEL."""
    if getattr(type(f), "has_closed_form", False):
        try:
            return f.solve("closed_form"), "closed form"
        except NotSupportedError:
            pass
    return f.solve("CLARABEL", accept_inaccurate=True), "CLARABEL"


def _is_classification(f: Any, y: np.ndarray | None) -> bool:
    task = getattr(f, "task", None)
    if isinstance(task, str):
        return task == "classification"
    flag = getattr(f, "classification", None)
    if isinstance(flag, bool):
        return flag
    return y is not None and y.ndim == 1 and np.unique(y).size == 2


def _pm(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return np.where(y == classes[-1], 1.0, -1.0)


def _hook(f: Any, classification: bool) -> Callable[[Any, Any], Any] | None:
    order = ("decision_function", "predict") if classification else ("predict", "decision_function")
    for name in order:
        m = getattr(f, name, None)
        if callable(m):
            return m
    return None


def _grid(X: np.ndarray, points: int) -> np.ndarray:
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * np.where(hi > lo, hi - lo, 1.0)
    axes = [np.linspace(a - p, b + p, points) for a, b, p in zip(lo, hi, pad)]
    return np.stack([g.ravel() for g in np.meshgrid(*axes)], axis=1)


def _model_values(f: Any, sol: Any, X: np.ndarray | None, y: np.ndarray | None,
                  classification: bool) -> _Values | None:
    """The first of: prediction (grid for 1-D / 2-D), fitted values, ``y - e``, ``y - e_v``."""
    from .harness.compare import fitted_values

    vals = sol.values
    hook = _hook(f, classification)
    if hook is not None and X is not None:
        try:
            d = X.shape[1]
            gridded = d == (2 if classification else 1)
            G = _grid(X, 400 if d == 1 else 150) if gridded else X
            v = np.asarray(hook(sol, G), dtype=np.float64).ravel()
            if v.shape[0] == G.shape[0] and np.all(np.isfinite(v)):
                name = getattr(hook, "__name__", "predict")
                return _Values(G, v, f"its {name}" + (" on a grid" if gridded else "(x_i)"),
                               on_grid=gridded, target=None if gridded else y)
        except Exception:  # a hook that needs more than (solution, X): use what is below
            pass
    if X is None or y is None:
        return None
    n = X.shape[0]
    fv = fitted_values(f, vals)
    if fv is not None and fv.shape == (n,):
        return _Values(X, fv, "its fitted values", target=y)
    classes = np.unique(y) if classification else None

    def from_residual(r: np.ndarray, target: np.ndarray) -> np.ndarray:
        if classes is None:
            return target - r
        return _pm(target, classes) * (1.0 - r)

    e = np.asarray(vals.get("e", np.empty(0)), dtype=np.float64)
    if e.shape == (n,):
        what = "y∘(1 − e)" if classification else "y − e"
        return _Values(X, from_residual(e, y), f"{what}, e the fit residual", target=y)
    ev = np.asarray(vals.get("e_v", np.empty(0)), dtype=np.float64)
    Xv, yv = getattr(f, "X_val", None), getattr(f, "y_val", None)
    if ev.ndim == 1 and Xv is not None and yv is not None and len(ev) == len(yv):
        Xv, yv = np.asarray(Xv, dtype=np.float64), np.asarray(yv)
        Xv = Xv.reshape(len(yv), -1)
        what = "y_v∘(1 − e_v)" if classification else "y_v − e_v"
        return _Values(Xv, from_residual(ev, yv), f"{what} at the validation points",
                       target=yv)
    if ev.shape == (n,):
        what = "y∘(1 − e_v)" if classification else "y − e_v"
        return _Values(X, from_residual(ev, y), f"{what}, out of fold", target=y)
    return None


def _coefficients(vals: dict[str, Any], n: int | None) -> tuple[str, np.ndarray] | None:
    for key in ("alpha", "beta", "w", "c"):
        v = np.asarray(vals.get(key, np.empty(0)), dtype=np.float64)
        if v.ndim == 1 and v.size and (n is None or v.size == n):
            return key, v
    for key, v in vals.items():
        v = np.asarray(v, dtype=np.float64)
        if v.ndim == 1 and v.size > 1:
            return key, v
    return None


def _combined_note(vals: dict[str, Any], n: int | None) -> str:
    """Names the per-node / per-component arrays that the plotted output combines."""
    for k, v in vals.items():
        v = np.asarray(v)
        if v.ndim == 2 and n is not None and v.shape[0] == n and v.shape[1] > 1:
            return f", combining the {v.shape[1]} columns of {k}"
    return ""


def _label(c: Any) -> str:
    """``"class 1"`` for the label 1.0, ``"class spam"`` for "spam"."""
    return f"class {c:g}" if isinstance(c, (int, float, np.number)) else f"class {c}"


def _labels_scatter(ax: Any, X: np.ndarray, y: np.ndarray, classes: np.ndarray) -> None:
    for c, colour, marker in zip(classes, OKABE_ITO[:2], ("o", "^")):
        m = y == c
        ax.scatter(X[m, 0], X[m, 1], s=40, c=colour, marker=marker, edgecolors="white",
                   linewidths=0.6, label=_label(c), zorder=3)


def _draw(ax: Any, got: _Values | None, f: Any, sol: Any, X: np.ndarray | None,
          y: np.ndarray | None, classification: bool) -> str:
    """Draws on ``ax``; returns the subtitle's description of what is drawn."""
    n = None if X is None else X.shape[0]
    if got is None:  # the solution's coefficients by training point
        coef = _coefficients(sol.values, n)
        if coef is None:
            raise NotSupportedError(f"{type(f).__name__}: nothing to plot in its solution")
        key, v = coef
        idx = np.arange(v.size)
        if classification and y is not None and v.size == y.size:
            classes = np.unique(y)
            for c, colour, marker in zip(classes, OKABE_ITO[:2], ("o", "^")):
                m = y == c
                ax.vlines(idx[m], 0, v[m], colors=colour, linewidth=1.5)
                ax.scatter(idx[m], v[m], c=colour, marker=marker, s=36, zorder=3,
                           label=_label(c))
            ax.legend(loc="best")
        else:
            ax.vlines(idx, 0, v, colors=OKABE_ITO[0], linewidth=1.5)
            ax.plot(idx, v, "o", color=OKABE_ITO[0], markersize=5)
        ax.axhline(0, color="0.4", linewidth=1)
        ax.set_xlabel("training point i")
        ax.set_ylabel(f"{key}_i")
        return f"{key} by training point (the solution has no model output)"
    if classification and got.on_grid and y is not None and X is not None:
        classes = np.unique(y)
        side = int(round(np.sqrt(got.X.shape[0])))
        gx, gy = got.X[:, 0].reshape(side, side), got.X[:, 1].reshape(side, side)
        F = got.values.reshape(side, side)
        top = max(float(np.abs(F).max()), 1e-12)
        ax.contourf(gx, gy, F, levels=[-top - 1, 0, top + 1], colors=[OKABE_ITO[0], OKABE_ITO[1]],
                    alpha=0.15)
        ax.contour(gx, gy, F, levels=[0], colors="black", linewidths=2.5)
        ax.contour(gx, gy, F, levels=[-1, 1], colors="0.35", linewidths=1.2, linestyles="--")
        _labels_scatter(ax, X, y, classes)
        ax.set_xlabel("x₁")
        ax.set_ylabel("x₂")
        ax.legend(loc="best", frameon=True, framealpha=0.85, edgecolor="none")
        return f"regions: sign of {got.what}; f = 0 solid, ±1 dashed"
    target = got.target if got.target is not None else y
    if target is None:
        raise NotSupportedError(f"{type(f).__name__}: no targets to plot its values against")
    if classification:
        classes = np.unique(target)
        rng = np.random.default_rng(0)
        for k, (c, colour, marker) in enumerate(zip(classes, OKABE_ITO[:2], ("o", "^"))):
            m = target == c
            ax.scatter(k + rng.uniform(-0.18, 0.18, m.sum()), got.values[m], c=colour,
                       marker=marker, s=40, zorder=3, label=_label(c))
        ax.axhline(0, color="black", linewidth=1.5)
        ax.set_xticks(range(len(classes)), [_label(c) for c in classes])
        ax.set_xlim(-0.6, len(classes) - 0.4)
        ax.set_ylabel("decision value f(x)")
        return f"decision values by class: {got.what}"
    if X is not None and X.shape[1] == 1 and y is not None:
        ax.scatter(X[:, 0], y, s=30, color="0.25", alpha=0.8, label="data", zorder=2)
        order = np.argsort(got.X[:, 0])
        xs, vs = got.X[order, 0], got.values[order]
        if got.on_grid:
            ax.plot(xs, vs, color=OKABE_ITO[0], label="f(x)", zorder=3)
        else:
            ax.plot(xs, vs, "-o", color=OKABE_ITO[0], linewidth=1.5, markersize=5,
                    label="fitted (joined)", zorder=3)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.legend(loc="best")
        return got.what
    ax.scatter(target, got.values, s=36, color=OKABE_ITO[0], zorder=3)
    both = np.concatenate([np.asarray(target, dtype=np.float64), got.values])
    lo, hi = float(both.min()), float(both.max())
    ax.plot([lo, hi], [lo, hi], "--", color="0.4", linewidth=1.5, label="fitted = observed")
    ax.set_xlabel("observed y")
    ax.set_ylabel("fitted f(x)")
    ax.legend(loc="best")
    return f"fitted vs observed: {got.what}"


def _equation_numbers(equations: Any) -> str:
    """``"(1), (2)"``: the equation, problem, theorem and algorithm numbers of a reference."""
    import re

    found: list[str] = []
    pattern = (r"\(\d+[a-z]?\)(?:-\(\d+[a-z]?\))?|(?:Problem|Theorem|Algorithm|Alg\.) [\d.]+"
               r"|\bA\.\d+|§[\d.]*\d")
    for value in dict(equations or {}).values():
        found += [m for m in re.findall(pattern, str(value)) if m not in found]
    return ", ".join(found)


def formulation_figure(name: str, *, n: int = 60, seed: int = 0,
                       font_scale: float = 1.0) -> Any:
    """A slide-ready figure of the registered formulation ``name`` on its random instance.

    Solved by the closed form where the formulation has one, else by CLARABEL; titled with the
    name and the paper's equation numbers, subtitled with what is plotted and the solver (the
    module docstring lists what is plotted when).

    Parameters
    ----------
    name : str
        A key of :data:`lssvm_cvx.formulations.FORMULATIONS`.
    n : int, default=60
        Size of the random instance (at least 4).
    seed : int, default=0
        Seed of the random instance.
    font_scale : float, default=1.0
        Text size relative to :func:`slide_style`.

    Returns
    -------
    matplotlib.figure.Figure
        Not attached to pyplot (save it with :func:`save_figure`).

    Raises
    ------
    HyperparameterError
        Unknown ``name``, or ``n``, ``seed`` or ``font_scale`` out of range.
    """
    import warnings

    from matplotlib.figure import Figure

    from .formulations import get_formulation

    cls = get_formulation(name)
    check_integer(n, "n", low=4)
    check_integer(seed, "seed", low=0)
    rc: Any = slide_rc(font_scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # conditioning notes of the random instance
        f = cls.random_instance(int(n), seed=int(seed))
        sol, solver = _solve(f)
    X = getattr(f, "X", None)
    X = None if X is None else np.asarray(X, dtype=np.float64).reshape(len(X), -1)
    y = getattr(f, "y", None)
    y = None if y is None else np.asarray(y).ravel()
    classification = _is_classification(f, y)
    got = _model_values(f, sol, X, y, classification)
    import matplotlib

    with matplotlib.rc_context(rc):
        fig = Figure(layout="constrained")
        ax = fig.add_subplot()
        what = _draw(ax, got, f, sol, X, y, classification)
        scale = rc["font.size"] / 16.0  # wrap and tick counts shrink as the text grows
        if scale > 1:
            ax.locator_params(nbins=max(3, round(8 / scale)))
        eqs = _equation_numbers(cls.reference.equations)
        fig.suptitle(textwrap.fill(f"{name} — eq. {eqs}" if eqs else name, int(44 / scale)))
        status = "" if sol.status == "optimal" else f" ({sol.status})"
        nbsp = "\u00a0"  # no line break inside "closed form" or "n = 60"
        sub = f"{what}{_combined_note(sol.values, None if X is None else X.shape[0])} · " \
              f"{solver.replace(' ', nbsp)}{status}, n{nbsp}={nbsp}{n}"
        ax.set_title(textwrap.fill(sub, int(58 / scale)), fontsize=rc["xtick.labelsize"],
                     loc="left")
    return fig
