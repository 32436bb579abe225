r"""
Semi-supervised learning: Laplacian RLS with ten labels
=======================================================

Belkin, Niyogi and Sindhwani's Laplacian regularised least squares is a composition: the squared
loss on the *labelled* points only, the RKHS norm, and a graph term
:math:`\tfrac12 f^\top L f` over *all* points (:math:`L` the Laplacian of their
k-nearest-neighbour graph, :math:`f = K\alpha` the fitted values):

.. math::

    \min_{\alpha, b}\ \tfrac12 \sum_i s_i (y_i - f_i)^2
      + \tfrac{w_1}{2}\,\alpha^\top K \alpha + \tfrac{w_2}{2}\, f^\top L f,
    \qquad s_i = 1 \text{ (labelled)},\ 0 \text{ (unlabelled)}.

In :class:`lssvm_cvx.RegularizedLSSVMClassifier` a ``sample_weight`` of 0 keeps the point in the
kernel basis and in the graph (it only leaves the loss; its label is ignored), and the closed
form takes it (the primal problem on the range of :math:`K`, whose loss is the labelled rows). Two moons, 120 points, ten labels: the RKHS
norm alone draws a line between the labels; the graph carries them along the moons. The
closed form is checked against a cvxpy solve by the harness.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from lssvm_cvx import RegularizedLSSVMClassifier
from lssvm_cvx.formulations import RegularizedLSSVM
from lssvm_cvx.kernels import RBF
from lssvm_cvx.losses import Squared
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm
from lssvm_cvx.validate import compare

X, y = make_moons(120, noise=0.08, random_state=0)
weight = np.zeros(120)
weight[np.r_[np.flatnonzero(y == 0)[:5], np.flatnonzero(y == 1)[:5]]] = 1.0  # ten labels

lap = {"rkhs": (RKHSNorm(), 1e-2), "graph": (GraphLaplacian(n_neighbors=6), 0.1)}
laprls = RegularizedLSSVMClassifier(sigma2=0.1, terms=lap).fit(X, y, sample_weight=weight)
plain = RegularizedLSSVMClassifier(sigma2=0.1, terms={"rkhs": (RKHSNorm(), 1e-2)}).fit(
    X, y, sample_weight=weight)
print(f"accuracy on all 120 points: Laplacian RLS {laprls.score(X, y):.3f}, "
      f"RKHS norm alone {plain.score(X, y):.3f}")

# %%
# The same composition through the harness: the closed form against CLARABEL and SCS
f = RegularizedLSSVM(X, np.where(y == 1, 1.0, -1.0), kernel=RBF(0.1), terms=lap,
                     loss=Squared(sample_weight=weight))
report = compare(f, solvers=["CLARABEL", "SCS"])
print(report.to_frame()[["solver", "status", "rel_obj_gap", "max_rel_dev", "verdict"]]
      .to_string(index=False))

g0, g1 = np.meshgrid(np.linspace(-1.5, 2.5, 160), np.linspace(-1.0, 1.5, 120))
grid = np.c_[g0.ravel(), g1.ravel()]
fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
for ax, est, title in ((axes[0], plain, "RKHS norm alone"), (axes[1], laprls, "Laplacian RLS")):
    F = est.decision_function(grid).reshape(g0.shape)
    ax.contourf(g0, g1, F, levels=[-1e9, 0, 1e9], colors=["#cfe0f3", "#f6d5c8"], alpha=0.8)
    ax.contour(g0, g1, F, levels=[0], colors="k", linewidths=1.2)
    ax.scatter(*X[weight == 0].T, c=np.where(y[weight == 0] == 1, "tab:red", "tab:blue"),
               s=12, alpha=0.45, label="unlabelled (true class)")
    ax.scatter(*X[weight > 0].T, c=np.where(y[weight > 0] == 1, "tab:red", "tab:blue"),
               s=90, marker="*", edgecolors="k", label="the ten labels")
    ax.set_title(f"{title}: accuracy {est.score(X, y):.2f}")
    ax.set_xlabel("x₁")
    ax.set_xticks([-1, 0, 1, 2])
axes[0].set_ylabel("x₂")
handles, labels = axes[1].get_legend_handles_labels()
fig.tight_layout(rect=(0, 0.1, 1, 1))
fig.legend(handles, labels, loc="lower center", ncols=2)
plt.show()
