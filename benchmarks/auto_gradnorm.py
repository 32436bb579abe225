"""The gradient-norm regularizer of the Auto LS-SVM note (eq. 40-44): closed form against
numerical integration (adaptive quadrature in 1-D and 2-D, importance-sampled Monte Carlo with
its standard error in 4-D and 6-D), the smallest eigenvalue of each printed and normalised form
(the eq. 43/44 slip), and the Auto LS-SVM formulations through every cvxpy solver."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import integrate

from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.terms.gradient_basis import MARGIN_JITTER
from lssvm_cvx.terms.gradient_norm import gradient_norm_gram, gradient_norm_integrand


def _quad_1d(X, alpha, g):
    v, _ = integrate.quad(lambda t: gradient_norm_integrand(np.array([[t]]), X, alpha, g)[0],
                          -np.inf, np.inf, epsabs=0, epsrel=1e-12, limit=400)
    return v


def _quad_2d(X, alpha, g):
    def f(t2, t1):
        dx = np.array([t1, t2]) - X
        grad = -2 * g * (alpha * np.exp(-g * (dx * dx).sum(1))) @ dx
        return grad @ grad

    pad = 7.0 / np.sqrt(g)
    lo, hi = X.min(0) - pad, X.max(0) + pad
    v, _ = integrate.dblquad(f, lo[0], hi[0], lo[1], hi[1], epsabs=0, epsrel=1e-10)
    return v


def _mc(X, alpha, g, n, rng):
    d = X.shape[1]
    s = 0.75 / np.sqrt(g)
    mu = X.mean(0)
    Z = mu + s * rng.standard_normal((n, d))
    q = np.exp(-((Z - mu) ** 2).sum(1) / (2 * s * s)) / (2 * np.pi * s * s) ** (d / 2)
    w = np.concatenate([gradient_norm_integrand(Z[k:k + 50_000], X, alpha, g)
                        for k in range(0, n, 50_000)]) / q
    return w.mean(), w.std(ddof=1) / np.sqrt(n)


@register("auto_gradnorm", "Gradient-norm Gram (eq. 41-44) vs numerical integration; PSD of the forms; solvers",
          paper="auto-lssvm-sorber-2017", headline=True)
def run(ctx: Context) -> BenchResult:
    rows = []
    reps = ctx.reps(full=5, quick=2)
    for d in (1, 2, 4, 6):
        for r in range(reps):
            rng = np.random.default_rng(100 * d + r)
            g = float(rng.uniform(0.3, 3.0))
            X = rng.uniform(-1, 1, (5, d))
            alpha = rng.normal(size=5)
            closed = float(alpha @ gradient_norm_gram(X, gamma=g, form="exact") @ alpha)
            if d == 1:
                num, se, how = _quad_1d(X, alpha, g), np.nan, "adaptive quadrature (quad)"
            elif d == 2:
                num, se, how = _quad_2d(X, alpha, g), np.nan, "adaptive quadrature (dblquad)"
            else:
                num, se = _mc(X, alpha, g, ctx.reps(full=1_000_000, quick=200_000), rng)
                how = "importance-sampled Monte Carlo"
            rows.append({"d": d, "rep": r, "γ": g, "method": how, "closed form (41)": closed,
                         "numerical": num, "rel. difference": abs(closed - num) / abs(num),
                         "MC rel. standard error": se / abs(num) if np.isfinite(se) else np.nan,
                         "difference / SE": abs(closed - num) / se if np.isfinite(se) else np.nan})
    df = pd.DataFrame(rows)
    res = BenchResult("auto_gradnorm", "Gradient-norm regularizer: closed form vs numerical integration")
    res.tables.append(Table("∫||∇f||² for f = Σ α_i exp(-γ||x - x_i||²), 5 random centres", df,
                            "Quadrature to rel. 1e-12 (1-D) / 1e-10 (2-D); Monte Carlo with a Gaussian "
                            "proposal, its relative standard error stated."))
    quad = df[df.d <= 2]["rel. difference"].max()
    res.check("max rel. |closed form − quadrature| (1-D, 2-D)", float(quad), 1e-6)
    mc = df[df.d > 2]["difference / SE"].max()
    res.check("max |closed form − Monte Carlo| in standard errors (4-D, 6-D)", float(mc), 4.0)
    # PSD of the forms
    ev = []
    for d in (1, 2, 3, 5, 8):
        X = np.random.default_rng(d).standard_normal((400, d))
        row = {"d": d}
        for form in ("exact", "normalized", "eq43", "eq44"):
            G = gradient_norm_gram(X, gamma=1.0, form=form)
            w = np.linalg.eigvalsh(G)
            row[f"λ_min/λ_max {form}"] = w[0] / w[-1]
        ev.append(row)
    res.tables.append(Table("Smallest eigenvalue relative to the largest (400 standard-normal points, γ = 1)",
                            pd.DataFrame(ev), "eq. (43)/(44) as printed are indefinite from d = 3 on; "
                            "the exact Gram (41) and the normalised form used by the estimators are PSD.",
                            floatfmt=".3g"))
    worst = min(r["λ_min/λ_max eq44"] for r in ev if r["d"] >= 3)
    res.check("eq. (44) as printed, d ≥ 3: most negative λ_min/λ_max (slip: < 0)", worst, 0.0)
    # solver harness on both formulations
    from lssvm_cvx.formulations import get_formulation
    from lssvm_cvx.validate import compare

    cases = [("auto_lssvm", "alpha", 80, {}), ("auto_lssvm", "rkhs", 40, {"gamma": 30.0}),
             ("auto_lssvm_classifier", "rkhs", 80, {}), ("auto_lssvm_classifier", "alpha", 80, {})]
    for name, margin, n, kw in cases:
        rep = compare(get_formulation(name).random_instance(n, seed=0, margin=margin, **kw))
        res.tables.append(Table(f"{name} (margin = {margin}, n = {n}, {kw or 'default γ'}): closed form vs "
                                "cvxpy solvers", rep.to_frame(),
                                "Harness lssvm_cvx.validate.compare: deviations against the closed form, "
                                "objective by the NumPy twin, KKT residuals on the cvxpy problem.",
                                floatfmt=".3g"))
        res.check(f"{name} ({margin}, n = {n}): every solver agrees with the closed form",
                  float(rep.all_agree), 1.0, higher_is_better=True)
    # the case kept small above, at n = 80 with the default width: how ill-determined α is
    f80 = get_formulation("auto_lssvm").random_instance(80, seed=0, margin="rkhs")
    Kc = f80.K - f80.K.mean(axis=0)
    ev = np.linalg.eigvalsh(Kc.T @ Kc + f80.mu * f80.G + f80.nu * f80.R)
    rep80 = compare(f80)
    fr = rep80.to_frame()
    res.tables.append(Table("auto_lssvm (margin = rkhs, n = 80, default γ): closed form vs cvxpy solvers", fr,
                            "The instance the table above keeps small; α is judged on the fitted values "
                            "where it is not identifiable.", floatfmt=".3g"))
    solvers = fr[fr.solver != "closed_form"]
    res.notes = (f"With the RKHS margin the regression instance of the claims is n = {cases[1][2]} with "
                 f"γ = {cases[1][3]['gamma']:g}.  At n = 80 with the default width the Hessian "
                 f"K_c'K_c + μG + ν(K + {MARGIN_JITTER:g} I) has λ_min/λ_max = {ev[0] / ev[-1]:.2g}, so α is "
                 "determined only up to near-null directions; there the solvers' largest relative "
                 f"deviation from the closed form is {float(solvers['max_rel_dev'].max()):.2g} and their "
                 f"largest relative objective gap {float(solvers['rel_obj_gap'].max()):.2g}; every solver "
                 f"agrees within its profile: {'yes' if rep80.all_agree else 'no'}.  The fitted values, "
                 "not α, are what the estimators use.")
    return res
