r"""
Composing a new regularizer
===========================

:class:`lssvm_cvx.formulations.RegularizedLSSVM` minimises
:math:`L(y, K\alpha + b\mathbf 1) + \sum_k w_k T_k(\alpha)` over the expansion
:math:`f(x) = \sum_i \alpha_i k(x_i, x) + b`. A new penalty is a :class:`lssvm_cvx.terms.Term`.
A *quadratic* term only returns a PSD matrix :math:`P` (the term is
:math:`\tfrac12\alpha^\top P\alpha`); the cvxpy expression, the NumPy twin, the closed form,
exact leave-one-out residuals and one-weight paths then come for free.

Here the new term penalises the curvature of the fitted curve at the (sorted) training inputs,
:math:`\tfrac12\|D_2 K\alpha\|^2` with :math:`D_2` the second-difference matrix, so
:math:`P = K D_2^\top D_2 K`. It is added to the LS-SVM's RKHS norm and its weight is chosen by
exact leave-one-out along a path; the harness then checks the closed form against cvxpy solvers.
"""

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx import problems
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Squared
from lssvm_cvx.terms import RKHSNorm, Term
from lssvm_cvx.validate import compare


class Curvature(Term):
    """½ ||D₂ f||² with f = Kα at the training inputs sorted along the first column."""

    def quadratic(self, ctx):
        order = np.argsort(ctx.X[:, 0])
        n = ctx.n
        D = np.zeros((n - 2, n))
        for r in range(n - 2):                       # second differences in sorted order
            D[r, order[r:r + 3]] = (1.0, -2.0, 1.0)
        DK = D @ ctx.K
        return DK.T @ DK


ds = problems.get_problem("sinc", seed=2)
X, y = ds.X, ds.y
kernel = RBF(0.1)                                     # a narrow kernel that wants to wiggle
f = RegularizedLSSVM(X, y, kernel=kernel, loss=Squared(),
                     terms={"rkhs": (RKHSNorm(), 0.1), "curv": (Curvature(), 1.0)})
print("DPP:", f.build().is_dpp(), "| parameters:", sorted(f.build().params))

# %%
# The curvature weight by exact leave-one-out
# -------------------------------------------
weights = np.logspace(-4, 3, 36)
path = f.path("curv", weights)                       # one factorisation per weight, no refits
loo = path.mse()
best = weights[int(np.argmin(loo))]
f.terms = {"rkhs": (RKHSNorm(), 0.1), "curv": (Curvature(), best)}
plain = RegularizedLSSVM(X, y, kernel=kernel, loss=Squared(), terms={"rkhs": (RKHSNorm(), 0.1)})

# %%
# The harness: the closed form of the new composition against cvxpy solvers
report = compare(f, solvers=["CLARABEL", "OSQP"])
print(report.to_frame()[["solver", "status", "solve_s", "cert_dual", "verdict"]]
      .to_string(index=False))

grid = np.linspace(-3, 3, 400)[:, None]
Kg = kernel(grid, X)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
ax1.loglog(weights, loo)
ax1.axvline(best, color="tab:red", ls=":", label=f"LOO-selected weight {best:.2g}")
ax1.set_xlabel("curvature weight w")
ax1.set_ylabel("exact leave-one-out MSE")
ax1.set_title("One-weight path of the new term")
ax1.legend()
for g, lab in ((plain, "RKHS norm only (LS-SVM, γ = 10)"), (f, "RKHS norm + curvature")):
    s = g.solve()
    ax2.plot(grid[:, 0], Kg @ s["alpha"] + s.scalar("b"), lw=2, label=lab)
ax2.plot(X[:, 0], y, "o", ms=4, color="0.4")
ax2.plot(grid[:, 0], problems.synthetic.sinc_fn(grid[:, 0]), "k--", lw=1, label="sinc")
ax2.set_ylim(-1.2, 1.8)
ax2.set_title("σ² = 0.1: the curvature\nterm tames the fit")
ax2.legend()
fig.tight_layout()
plt.show()

# %%
# The LS-SVM is a preset of the composition
# -----------------------------------------
# ``LSSVMRegressor(gamma=γ)`` is the squared loss with the RKHS norm weighted :math:`1/\gamma`:
# its fit and its exact leave-one-out search over a γ grid *are* the composed estimator's over
# the weights :math:`1/\gamma` (one code path, ``lssvm_cvx.estimators.regularized.fit_arrays``).
from lssvm_cvx import LSSVMRegressor, RegularizedLSSVMRegressor  # noqa: E402

gammas = np.logspace(-2, 3, 11)
lssvm = LSSVMRegressor(sigma2=0.1, selection="loo", gamma_grid=gammas).fit(X, y)
composed = RegularizedLSSVMRegressor(sigma2=0.1, selection="loo",
                                     weight_grid={"rkhs": 1.0 / gammas}).fit(X, y)
print(f"LSSVMRegressor: γ = {lssvm.gamma_:.4g}; composed: RKHS weight "
      f"{composed.terms_['rkhs'][1]:.4g} = 1/{1 / composed.terms_['rkhs'][1]:.4g}")
print("largest difference of the LOO scores:",
      f"{np.max(np.abs(lssvm.cv_results_['mean_test_score'] - composed.cv_results_['mean_test_score'])):.1e},",
      f"of the coefficients: {np.max(np.abs(lssvm.dual_coef_ - composed.dual_coef_)):.1e}")
