r"""
The ℓ2-SVM regularization path
==============================

Bonidal, Tindel & Guermeur follow the solution of the ℓ2-SVM (Problem 2) from a large to a
small :math:`\lambda`: on each segment the active set :math:`E` is fixed and the multipliers
solve a bordered linear system (eq. 7). :class:`~lssvm_cvx.L2SVMClassifier` with ``path=True``
exposes the whole path: ``path_["alpha"]`` (the :math:`\alpha_i(\lambda)` curves),
``path_["m_E"]`` (:math:`|E|`) and the criterion along it; ``cv_results_`` lists the path
points as candidates. The span estimate of the leave-one-out error (Prop. 4) and the
radius-margin bound (Theorem 1) pick :math:`\lambda`.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.preprocessing import StandardScaler

from lssvm_cvx import problems
from lssvm_cvx import L2SVMClassifier

ds = problems.get_problem("banana")
tr, te = problems.random_split(ds.n_samples, [150, 1000], seed=0)
sc = StandardScaler().fit(ds.X[tr])
X, y, Xt, yt = sc.transform(ds.X[tr]), ds.y[tr], sc.transform(ds.X[te]), ds.y[te]

span = L2SVMClassifier(path=True, criterion="span", sigma2=0.7).fit(X, y)
rm = L2SVMClassifier(path=True, criterion="radius_margin", sigma2=0.7).fit(X, y)
P = span.path_
lam = P["lambdas"]
print(f"{lam.size} path points; span picks λ = {span.lam_:.3g} (test accuracy "
      f"{span.score(Xt, yt):.3f}), radius-margin picks λ = {rm.lam_:.3g} "
      f"(test accuracy {rm.score(Xt, yt):.3f})")
test_err = [np.mean(L2SVMClassifier(lam=float(v), sigma2=0.7).fit(X, y).predict(Xt) != yt)
            for v in lam[::4]]

fig, axes = plt.subplots(2, 2, figsize=(12, 9), sharex=True)
A = P["alpha"]
ax = axes[0, 0]
show = np.argsort(-A.max(axis=0))[:25]            # the 25 points with the largest multipliers
ax.semilogx(lam, A[:, show], lw=1)
ax.set_ylabel("αᵢ(λ)")
ax.set_title("Multipliers along the path (25 points)")
ax = axes[0, 1]
ax.semilogx(lam, P["m_E"], drawstyle="steps-post")
ax.set_ylabel("|E| (support vectors)")
ax.set_title("Size of the active set")
ax = axes[1, 0]
ax.semilogx(lam, P["criterion"], label="span LOO estimate")
ax.semilogx(lam[::4], test_err, "o", ms=4, label="test error (refits)")
ax.axvline(span.lam_, color="tab:red", ls=":", label="span's λ")
ax.set_xlabel("λ")
ax.set_title("Span criterion")
ax.legend()
ax = axes[1, 1]
ax.loglog(rm.path_["lambdas"], rm.path_["criterion"])
ax.axvline(rm.lam_, color="tab:red", ls=":", label="radius-margin's λ")
ax.set_xlabel("λ")
ax.set_title("Radius-margin bound (4/m) R² ‖w‖²")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The same candidates in scikit-learn's layout
best = int(np.argmin(span.cv_results_["rank_test_score"]))
print(span.cv_results_["params"][best], span.cv_results_["mean_test_score"][best])
