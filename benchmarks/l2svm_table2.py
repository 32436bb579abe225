"""Bonidal et al. (2013) Table 2: optimality of the path solution.

For banana (400 training points), twonorm (400) and image (1300), with the linear kernel and
the paper's Gaussian widths, the path (the paper's 2% rule, density-weighted Nyström on 80% of
the training set, eigenvalue threshold 1e-6, λ from 1e-6 to 1e7) is compared at 10 λ values
with the exact QP (CLARABEL on Problem 2 with the exact Gram) and with the hard-margin
equivalence (scikit-learn's SVC, precomputed ``K + (λ/2) I``, C = 1e10).  The ratio is Problem
2's objective (exact Hessian) at the path's multipliers over its value at CLARABEL's.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from lssvm_cvx import problems
from lssvm_cvx.bench import BenchResult, Context, Table, register
from lssvm_cvx.formulations.l2svm import L2SVMDual, dual_objective
from lssvm_cvx.kernels import RBF, Linear
from lssvm_cvx.kernels.factors import nystroem_factor
from lssvm_cvx.selection.l2svm_path import regularization_path

from .l2svm_common import PAPER, gaussian_sigma2, one_thread, pm1, standardize

PAPER_ROWS = [  # data, kernel, rank, path s (changes), libsvm s, ratio
    ("banana", "Linear", 2, 0.5996, 44, 1.6229, 0.99988),
    ("banana", "Gaussian (0.2)", 317, 1.5592, 49, 0.8799, 0.98236),
    ("banana", "Gaussian (0.6)", 147, 0.95875, 45, 1.455, 0.99993),
    ("banana", "Gaussian (1)", 81, 0.84712, 46, 16.0839, 0.99945),
    ("banana", "Gaussian (1.4)", 56, 0.79836, 45, 18.8339, 1.0001),
    ("banana", "Gaussian (1.8)", 44, 0.8895, 44, 13.0951, 0.9991),
    ("twonorm", "Linear", 20, 0.69215, 50, 0.99338, 0.99963),
    ("twonorm", "Gaussian (10)", 319, 1.0794, 49, 1.1886, 0.99304),
    ("twonorm", "Gaussian (15)", 319, 1.0554, 49, 1.1857, 0.99361),
    ("twonorm", "Gaussian (20)", 319, 1.0842, 49, 1.1932, 0.99231),
    ("twonorm", "Gaussian (25)", 319, 1.0724, 49, 1.1952, 0.99305),
    ("twonorm", "Gaussian (30)", 289, 0.99932, 49, 1.2005, 0.99553),
    ("twonorm", "Gaussian (35)", 244, 0.90694, 49, 1.2022, 0.99558),
    ("twonorm", "Gaussian (40)", 231, 0.90001, 49, 1.2066, 0.99672),
    ("image", "Linear", 14, 2.267, 44, 33.7736, 1.0001),
    ("image", "Gaussian (2)", 905, 9.3627, 47, 5.4173, 0.98943),
    ("image", "Gaussian (3)", 873, 7.8396, 46, 5.2021, 0.99386),
    ("image", "Gaussian (4)", 778, 7.7303, 45, 5.5274, 0.99759),
    ("image", "Gaussian (5)", 683, 6.0358, 45, 6.3224, 0.99899),
    ("image", "Gaussian (6)", 598, 5.3664, 41, 5.6593, 0.99977),
    ("image", "Gaussian (7)", 527, 5.3114, 41, 5.7693, 0.99987),
]

#: libsvm iteration cap: the near-hard-margin fits on the linear image Gram need ~1e6
#: iterations at λ = 0.1 and far more below; uncapped, one row takes over half an hour
SVC_MAX_ITER = 10**6

DATA = {"banana": ("banana", 400), "twonorm": ("twonorm_keel", 400), "image": ("image", 1300)}


def _kernel(name: str):
    if name == "Linear":
        return Linear()
    return RBF(gaussian_sigma2(float(name.split("(")[1].rstrip(")"))))


def _one(data: str, kname: str, lams: np.ndarray, seed: int) -> dict:
    pname, n = DATA[data]
    ds = problems.get_problem(pname)
    tr = problems.random_split(ds.n_samples, [n], seed)[0]
    X, _ = standardize(np.asarray(ds.X[tr], float))
    y = pm1(ds.y[tr])
    k = _kernel(kname)
    K = k(X)
    H = K * np.outer(y, y)
    t0 = time.perf_counter()
    fac = nystroem_factor(X, k, int(round(0.8 * n)), weighting="density", threshold=1e-6,
                         random_state=seed)
    path = regularization_path(y, factor=fac, breakpoints="paper", lam_min=1e-6, lam_max=1e7)
    t_path = time.perf_counter() - t0
    f = L2SVMDual.from_gram(K, y, lam=1.0)
    ratios, ratios_svc, t_cl, t_svc, e_agree, svc_fail = [], [], [], [], [], 0
    for lam in lams:
        a_path, _ = path.solution_at(lam)
        f.lam = lam
        t1 = time.perf_counter()
        qp = f.solve("CLARABEL", accept_inaccurate=True)
        t_cl.append(time.perf_counter() - t1)
        t1 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc = SVC(kernel="precomputed", C=1e10, tol=1e-6, max_iter=SVC_MAX_ITER).fit(K + 0.5 * lam * np.eye(n), y)
        t_svc.append(time.perf_counter() - t1)
        svc_fail += int(svc.fit_status_ != 0 or svc.n_iter_[0] >= SVC_MAX_ITER)
        a_svc = np.zeros(n)
        a_svc[svc.support_] = svc.dual_coef_[0] * y[svc.support_]
        W_qp = dual_objective(H, lam, qp["alpha"])
        ratios.append(dual_objective(H, lam, a_path) / W_qp)
        ratios_svc.append(dual_objective(H, lam, a_svc) / W_qp)
        Eqp = qp["alpha"] > 1e-6 * qp["alpha"].max()
        Ep = a_path > 0
        e_agree.append(float(np.mean(Eqp == Ep)))
    return {"data": data, "kernel": kname, "m": n, "rank": fac.rank, "path [s]": t_path,
            "steps": path.n_changes, "steps changing E": path.n_set_changes, "solves": path.n_solves,
            "CLARABEL x10 [s]": 10 * float(np.mean(t_cl)), "SVC x10 [s]": 10 * float(np.mean(t_svc)),
            "ratio path/QP (mean)": float(np.mean(ratios)), "ratio path/QP (min)": float(np.min(ratios)),
            "ratio SVC/QP (min)": float(np.min(ratios_svc)), "SVC stopped at max_iter": svc_fail,
            "E agreement": float(np.mean(e_agree)), "n λ": len(lams)}


@register("l2svm_table2", "ℓ2-SVM path: optimality against CLARABEL and SVC (Bonidal et al. Table 2)",
          paper=PAPER, headline=True)
def run(ctx: Context) -> BenchResult:
    lams = np.logspace(-3, 3, 10)
    rows_spec = PAPER_ROWS
    if ctx.quick:
        rows_spec = [r for r in PAPER_ROWS if (r[0], r[1]) in
                     {("banana", "Linear"), ("banana", "Gaussian (1)"), ("twonorm", "Gaussian (20)")}]
        lams = np.logspace(-3, 3, 10)
    with one_thread():
        rows = ctx.map(lambda r: _one(r[0], r[1], lams, ctx.seed), rows_spec, desc="table 2")
    ours = pd.DataFrame(rows)
    paper = pd.DataFrame([{"data": r[0], "kernel": r[1], "rank": r[2], "path [s]": r[3], "changes": r[4],
                           "l2-libsvm x10 [s]": r[5], "ratio": r[6]} for r in rows_spec])
    res = BenchResult("l2svm_table2", "ℓ2-SVM regularization path: optimality (Bonidal et al. 2013, Table 2)")
    res.tables.append(Table(
        "Table 2", ours,
        "Path: the paper's 2% rule, density-weighted Nyström on 80% of the training set (k-means "
        "centres), eigenvalue threshold 1e-6, λ from 1e-6 to 1e7; time includes the factor. "
        "Ratios: Problem 2's objective with the exact Hessian at the path's (resp. SVC's) "
        "multipliers over its value at CLARABEL's, at 10 λ in [1e-3, 1e3]; CLARABEL and SVC "
        "times are 10 × their mean over those λ (the paper's convention). 'E agreement': share "
        "of points on the same side of E/I as CLARABEL's support set. 'steps': λ^l values "
        "(the paper's 'changes in set detected' in parentheses is closest to 'steps changing E'). "
        "One BLAS thread.",
        paper=paper, floatfmt=".6g"))
    res.check("min over rows of mean ratio path/QP", float(ours["ratio path/QP (mean)"].min()), 0.98,
              higher_is_better=True)
    res.check("number of λ values compared per row", float(ours["n λ"].min()), 10, higher_is_better=True)
    pr = {(r[0], r[1]): r for r in rows_spec}
    dev = [abs(int(o["rank"]) - pr[(o["data"], o["kernel"])][2]) for o in rows
           if o["data"] in ("banana", "twonorm")]
    rank_note = (f"; with that reading the banana and twonorm ranks differ from the paper's by "
                 f"{min(dev)}-{max(dev)}." if dev else ".")
    other = [int(o["steps"]) for o in rows if not (o["data"] == "banana" and o["kernel"] == "Linear")]
    bl = [int(o["steps"]) for o in rows if o["data"] == "banana" and o["kernel"] == "Linear"]
    steps_note = (f" Steps: banana, linear: ours {bl[0]}, the paper's {pr[('banana', 'Linear')][4]} "
                  f"(1e7 → 1e-6 is {np.log2(1e13):.1f} halvings);" if bl else "")
    steps_note += (f" elsewhere our 2% rule takes {min(other)}-{max(other)} steps against the paper's "
                   f"{min(r[4] for r in rows_spec)}-{max(r[4] for r in rows_spec)} changes." if other else "")
    res.notes = (
        "Data: banana and twonorm (the KEEL data file) with 400 training points, image with 1300, "
        f"drawn with problems.random_split(seed={ctx.seed}); standardized on the training points. "
        "The paper's Gaussian(σ) is read as exp(-||x-z||²/(2σ²)) (our sigma2 = 2σ²). "
        "The reference QP is CLARABEL (tolerances 1e-10) on the exact Gram, not ℓ2-libsvm (not "
        "available); the hard-margin equivalence uses scikit-learn's SVC (libsvm) with C = 1e10 "
        "on K + (λ/2) I, capped at 1e6 libsvm iterations (the column 'SVC stopped at max_iter' "
        "counts the capped fits; their ratios show what libsvm reaches). The paper does not say at which λ it compared; we use 10 log-spaced λ "
        "in [1e-3, 1e3]. Ratios below 1 measure the cost of the Nyström approximation (the "
        "path is exact for the approximated kernel, see tests/test_l2svm_path.py); ranks differ "
        "from the paper's because the threshold acts on our Nyström eigenvalue estimates m·μ_k "
        "(the paper does not say which eigenvalues it thresholds)" + rank_note + steps_note
        + " The paper does not give enough detail (which predictions are counted, m or m_E) to pin "
        "the step counts down.")
    return res
