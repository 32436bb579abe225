"""Bonidal et al. (2013) Fig. 3: the radius-margin bound (truncated to 1), the span leave-one-out
test error prediction and the test error along the regularization path on banana."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.kernels import RBF
from lssvm_cvx.selection.l2svm_path import regularization_path

from .l2svm_common import PAPER, one_thread, raetsch_split, sigma2_heuristic


@register("l2svm_fig3", "ℓ2-SVM: radius-margin bound, span LOO prediction and test error along the path "
                        "(Bonidal et al. Fig. 3)", paper=PAPER)
def run(ctx: Context) -> BenchResult:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, Xt, yt = raetsch_split("banana", ctx.seed)
    if ctx.quick:
        Xt, yt = Xt[:1000], yt[:1000]
    s2 = sigma2_heuristic(X)
    k = RBF(s2)
    with one_thread():
        path = regularization_path(y, K=k(X), breakpoints="paper", lam_min=1e-6, lam_max=1e7, X=X, kernel=k)
        lams = path.lambdas
        span = path.span()
        rm = path.radius_margin()
        Kt = k(Xt, X)
        test = []
        for j in range(len(lams)):
            E, aE, b = path.active_sets[j], path.alphas[j], path.alpha0[j]
            dec = Kt[:, E] @ (y[E] * aE) + b
            test.append(float(np.mean(np.where(dec > 0, 1.0, -1.0) != yt)))
    test = np.array(test)
    j_span = int(np.flatnonzero(span <= span.min())[0])
    j_rm = int(np.flatnonzero(rm <= rm.min())[0])
    j_best = int(np.argmin(test))
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ax.semilogx(lams, np.minimum(rm / 4, 1.0), color="C0", label="radius-margin R²||w̃||²/m (truncated to 1)")
    ax.semilogx(lams, span, color="C1", label="span LOO test error prediction")
    ax.semilogx(lams, test, color="C2", label="test error")
    ax.axvline(lams[j_span], color="C1", ls=":", lw=1)
    ax.axvline(lams[j_rm], color="C0", ls=":", lw=1)
    ax.set_xlabel("λ")
    ax.set_ylabel("error")
    ax2 = ax.twinx()
    ax2.loglog(lams, rm, color="C0", ls="--", lw=0.8, label="radius-margin as printed, 4R²||w̃||²/m")
    ax2.set_ylabel("radius-margin bound (as printed)")
    ax.set_title(f"banana, m = {len(y)}, RBF σ² = {s2:.3g}")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    fig.tight_layout()
    df = pd.DataFrame({"lambda": lams, "m_E": path.m_E(), "radius-margin": rm, "span LOO": span, "test error": test})
    summary = pd.DataFrame([
        {"criterion": "span LOO prediction", "λ*": lams[j_span], "criterion value": span[j_span],
         "test error at λ*": test[j_span]},
        {"criterion": "radius-margin bound", "λ*": lams[j_rm], "criterion value": rm[j_rm],
         "test error at λ*": test[j_rm]},
        {"criterion": "oracle (min test error on the path)", "λ*": lams[j_best], "criterion value": np.nan,
         "test error at λ*": test[j_best]}])
    res = BenchResult("l2svm_fig3", "ℓ2-SVM model-selection criteria along the path (Bonidal et al. 2013, Fig. 3)")
    res.figures["criteria"] = fig
    res.tables.append(Table("Selected λ", summary,
                            "Span prediction (Prop. 4) and radius-margin bound (Theorem 1, R² by CLARABEL "
                            "per λ) at every λ^l of the path (the paper's 2% rule, exact Gram)."))
    res.tables.append(Table("Fig. 3 data", df, "", floatfmt=".4g"))
    res.check("test error at span-selected λ - oracle test error", test[j_span] - test[j_best], 0.02)
    res.check("test error at radius-margin-selected λ - oracle", test[j_rm] - test[j_best], 0.05)
    res.notes = (
        f"banana realisation seed {ctx.seed} (400 train / {len(yt)} test), standardized; σ² from the "
        "Table-4 heuristic (mean squared distance to the centre of mass). The paper's figure has "
        "no numbers to compare with; its statement (both minima are adequate for model "
        "selection, the span prediction tracks the test error) is what the checks measure. "
        f"With the factor 4 of Theorem 1 as printed, the bound never drops below 1 here (min "
        f"{rm.min():.3g}), so 'truncated to 1' would be a flat line: the figure plots the bound "
        "without the 4 (Chapelle et al. 2002's form R²||w||²/m, the paper's ref. [9]) truncated "
        "to 1 on the left axis, and the printed bound on the right axis. The constant does not "
        "move the minimiser.")
    return res
