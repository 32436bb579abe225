"""The closed form on a GPU (issue 31): ``lssvm_cvx.device`` against bare PyTorch on the same
device and against NumPy/SciPy on the same machine's CPUs, in one run.

When a CUDA device is present (``torch.cuda.is_available()``), float64, RBF on d = 8 inputs
drawn uniformly from [0, 1]⁸, ``y = sin(Σ x)``, interleaved medians of 3 runs after one
untimed round (quick mode: smaller N):

0. **Agreement**: every output at N = 2000 against the same functions on NumPy arrays (the
   Nyström scores against the spread of two NumPy runs that differ only in the centres' order:
   the round-off level of that problem, whose wide-RBF ``K_ZZ`` is ill-conditioned).

1. **Exact fit**, N ∈ {10⁴, 2·10⁴, 4·10⁴}: bare PyTorch (``exp(-cdist²/σ²)``,
   ``linalg.cholesky(K + I/γ)``, two ``linalg.solve_triangular``: the floor of an exact
   LS-SVM fit) against ``rbf_gram`` + ``lssvm_fit`` (the same work with the package's checks)
   and ``lssvm_loo_residuals``; NumPy/SciPy on the CPUs (the same functions on NumPy arrays,
   one run) at the smallest N.
2. **γ path**, N ∈ {10⁴, 2·10⁴}: bare ``linalg.eigh(K)`` against ``loo_gamma_path`` over 15 γ.
3. **(γ, σ²) selection**, 15 γ × 7 σ² at N = 2·10⁴ (one run each): ``loo_grid`` by one
   Cholesky and the diagonal of its inverse per pair (block forward substitution in matrix
   products, :func:`lssvm_cvx.device.inverse_diagonal`) and by one ``eigh`` per σ², against one bare
   ``eigh``, against bare PyTorch's ways to the same numbers (one Cholesky and
   ``solve_triangular(L, I)``, or ``cholesky_inverse``, × 105) and against the floor of any
   Cholesky method (105 bare Cholesky factors alone); the two methods' scores compared.
4. **Nyström**, N = 10⁷ rows, m = 2000 centres, 15 γ: the bare streamed normal-equation pass
   (``Σ K_Bᵀ K_B``, ``Σ K_Bᵀ y`` over blocks of 2¹⁷ rows) against ``nystroem_loo_path`` (that
   pass, one ``m × m`` eigendecomposition, a second pass for every γ's exact LOO residuals).
5. **Auto LS-SVM**: ``AutoLSSVMRegressor`` (exact basis, the whole (γ, μ, ν) search) on device
   arrays against NumPy on the CPUs at N = 2000 (selection, predictions, time) and on the device
   at N = 10⁴ against bare ``eigh`` times the search's decompositions; with the Nyström basis
   (500 centres, streamed) against NumPy at N = 5·10⁴ and on the device at N = 10⁶.

The claims are the issue's targets: exact fit ≤ 1.3× bare at the largest N; the grid ≤ 3 bare
eigendecompositions; Nyström ≤ 3× the bare pass.  Without CUDA the benchmark records that it was
skipped and checks nothing (the timed code is run on the CPU by ``tests/test_device.py``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from lssvm_cvx.bench import BenchResult, Context, Table, interleaved_times, register

S2, GAMMA, D = 8.0, 10.0, 8
GAMMAS = np.logspace(-3, 4, 15)
SIGMA2S = np.logspace(0, 2, 7)


def _cuda() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


class _Dev:
    """Data and a synchronised timer on one PyTorch device."""

    def __init__(self, torch: Any, device: str):
        self.torch, self.dev = torch, torch.device(device)

    def sync(self, f: Any) -> Any:
        def g() -> Any:
            out = f()
            if self.dev.type == "cuda":
                self.torch.cuda.synchronize()
            return out
        return g

    def data(self, n: int, seed: int = 0) -> tuple[Any, Any]:
        torch = self.torch
        gen = torch.Generator(device=self.dev).manual_seed(seed)
        X = torch.rand((n, D), generator=gen, device=self.dev, dtype=torch.float64)
        return X, torch.sin(X.sum(dim=1))

    def free(self) -> None:
        if self.dev.type == "cuda":
            self.torch.cuda.empty_cache()

    def once(self, f: Any) -> float:
        t0 = time.perf_counter()
        self.sync(f)()
        return time.perf_counter() - t0


def measure_fit(d: _Dev, n: int, *, cpu: bool) -> dict[str, Any]:
    """Table 1, one N: seconds of the bare fit, the package's fit and fit + LOO."""
    from lssvm_cvx.device import lssvm_fit, lssvm_loo_residuals, rbf_gram

    torch = d.torch
    X, y = d.data(n)

    def bare_fit() -> None:
        G = torch.exp(-torch.cdist(X, X) ** 2 / S2)
        L = torch.linalg.cholesky(G + torch.eye(n, device=d.dev, dtype=X.dtype) / GAMMA)
        rhs = torch.stack([y, torch.ones_like(y)], dim=1)
        torch.linalg.solve_triangular(L.mT, torch.linalg.solve_triangular(L, rhs, upper=False),
                                      upper=True)

    funcs = {"bare PyTorch: Gram + Cholesky + 2 solves": d.sync(bare_fit),
             "lssvm_cvx.device: rbf_gram + lssvm_fit":
                 d.sync(lambda: lssvm_fit(rbf_gram(X, sigma2=S2), y, GAMMA)),
             "lssvm_cvx.device: + exact LOO residuals":
                 d.sync(lambda: lssvm_loo_residuals(rbf_gram(X, sigma2=S2), y, GAMMA))}
    row: dict[str, Any] = {"N": n}
    row.update({k: float(np.median(v)) for k, v in interleaved_times(funcs, 3).items()})
    row["fit / bare"] = row[list(funcs)[1]] / row[list(funcs)[0]]
    if cpu:
        Xc, yc = X.cpu().numpy(), y.cpu().numpy()
        t0 = time.perf_counter()
        lssvm_fit(rbf_gram(Xc, sigma2=S2), yc, GAMMA)
        row["NumPy/SciPy on the CPUs: rbf_gram + lssvm_fit (1 run)"] = time.perf_counter() - t0
    d.free()
    return row


def measure_path(d: _Dev, n: int) -> dict[str, Any]:
    """Table 2, one N: seconds of a bare ``eigh(K)`` and of the LOO path over 15 γ."""
    from lssvm_cvx.device import loo_gamma_path, rbf_gram

    X, y = d.data(n)
    K = rbf_gram(X, sigma2=S2)
    funcs = {"bare PyTorch: eigh(K)": d.sync(lambda: d.torch.linalg.eigh(K)),
             f"lssvm_cvx.device: loo_gamma_path over {len(GAMMAS)} γ":
                 d.sync(lambda: loo_gamma_path(K, y, GAMMAS))}
    row: dict[str, Any] = {"N": n}
    row.update({k: float(np.median(v)) for k, v in interleaved_times(funcs, 3, warmup=0).items()})
    d.free()
    return row


def measure_grid(d: _Dev, n: int, eigh_s: float | None = None) -> dict[str, Any]:
    """Table 3: one run of each method of ``loo_grid`` over 15 γ × 7 σ², bare PyTorch's ways to
    one pair's score, the bare Cholesky alone and (when not given) one bare ``eigh``."""
    from lssvm_cvx.device import loo_grid, rbf_gram

    torch = d.torch
    X, y = d.data(n)
    K = rbf_gram(X, sigma2=S2)
    eye = torch.eye(n, device=d.dev, dtype=X.dtype)

    def floor_one() -> None:
        L = torch.linalg.cholesky(K + eye / GAMMA)
        torch.linalg.solve_triangular(L, eye, upper=False)

    def floor_alt() -> None:
        torch.diagonal(torch.cholesky_inverse(torch.linalg.cholesky(K + eye / GAMMA)))

    def chol_only() -> None:
        torch.linalg.cholesky(K + eye / GAMMA)

    pairs = len(GAMMAS) * len(SIGMA2S)
    floors = interleaved_times({"f": d.sync(floor_one), "a": d.sync(floor_alt),
                                "c": d.sync(chol_only)}, 3)
    floor, alt, chol = (float(np.median(floors[k])) for k in ("f", "a", "c"))
    if eigh_s is None:
        eigh_s = float(np.median(interleaved_times({"e": d.sync(lambda: torch.linalg.eigh(K))},
                                                   1)["e"]))
    d.free()
    out: dict[str, Any] = {}
    t_chol = d.once(lambda: out.__setitem__("c", loo_grid(X, y, GAMMAS, SIGMA2S,
                                                          method="cholesky")))
    d.free()
    t_eigh = d.once(lambda: out.__setitem__("e", loo_grid(X, y, GAMMAS, SIGMA2S, method="eigh")))
    d.free()
    c, e = out["c"], out["e"]
    agree = float(torch.max(torch.abs(c - e) / torch.abs(e)))
    return {"N": n, "pairs": pairs, "bare eigh(K)": eigh_s,
            f"bare: {pairs} × (Cholesky + solve_triangular(L, I))": pairs * floor,
            f"bare: {pairs} × (Cholesky + cholesky_inverse)": pairs * alt,
            f"floor: {pairs} × bare Cholesky alone": pairs * chol,
            "loo_grid, method='cholesky'": t_chol, "loo_grid, method='eigh'": t_eigh,
            "cholesky / bare eigh": t_chol / eigh_s, "eigh / bare eigh": t_eigh / eigh_s,
            "cholesky / bare Cholesky + solve_triangular(L, I)": t_chol / (pairs * floor),
            "cholesky / its floor": t_chol / (pairs * chol),
            "max relative difference of the two methods' scores": agree,
            "same (σ², γ) chosen": bool(int(torch.argmin(c)) == int(torch.argmin(e)))}


def measure_nystroem(d: _Dev, n: int, m: int, block: int) -> dict[str, Any]:
    """Table 4: the bare streamed normal-equation pass against ``nystroem_loo_path``."""
    from lssvm_cvx.device import nystroem_loo_path

    torch = d.torch
    X, y = d.data(n, seed=1)
    Z = X[torch.randperm(n, generator=torch.Generator(device="cpu").manual_seed(2))[:m]
          .to(d.dev)]

    def bare_pass() -> None:
        G = torch.zeros((m, m), device=d.dev, dtype=X.dtype)
        g = torch.zeros((m,), device=d.dev, dtype=X.dtype)
        for a in range(0, n, block):
            KB = torch.exp(-torch.cdist(X[a:a + block], Z) ** 2 / S2)
            G += KB.mT @ KB
            g += KB.mT @ y[a:a + block]

    funcs = {"bare PyTorch: one normal-equation pass": d.sync(bare_pass),
             f"lssvm_cvx.device: nystroem_loo_path over {len(GAMMAS)} γ":
                 d.sync(lambda: nystroem_loo_path(X, y, Z, sigma2=S2, gammas=GAMMAS,
                                                  block_rows=block))}
    row: dict[str, Any] = {"N": n, "m": m}
    row.update({k: float(np.median(v)) for k, v in interleaved_times(funcs, 3).items()})
    row["path / bare pass"] = row[list(funcs)[1]] / row[list(funcs)[0]]
    path = nystroem_loo_path(X, y, Z, sigma2=S2, gammas=GAMMAS, block_rows=block)
    row["γ chosen"] = path.gamma
    row["rank"] = path.rank
    d.free()
    return row


def _timed(d: _Dev, fit: Any, X: Any, y: Any) -> tuple[float, Any]:
    """Seconds of one ``fit(X, y)`` on the device (synchronised) and the fitted model."""
    out: dict[str, Any] = {}
    t = d.once(lambda: out.__setitem__("model", fit(X, y)))
    return t, out["model"]


def _against_numpy(d: _Dev, fit: Any, n_cpu: int, seed: int) -> dict[str, Any]:
    """The Auto tables' comparison at ``n_cpu`` rows: ``fit`` on the device (after an untimed
    round) and on NumPy on the CPUs (one run each), the selected (γ, μ, ν) and the predictions
    of the two fits."""
    X, y = d.data(n_cpu, seed=seed)
    Xc, yc = X.cpu().numpy(), y.cpu().numpy()
    fit(X, y)                                                   # untimed round
    t_dev, dev = _timed(d, fit, X, y)
    t0 = time.perf_counter()
    cpu = fit(Xc, yc)
    t_cpu = time.perf_counter() - t0
    pred, ref = dev.predict(X[:200]).cpu().numpy(), cpu.predict(Xc[:200])
    return {"N (CPU comparison)": n_cpu, "device (s)": t_dev, "NumPy on the CPUs (s)": t_cpu,
            "CPU / device": t_cpu / t_dev,
            "same (γ, μ, ν)": (dev.kernel_gamma_, dev.mu_, dev.nu_) == (cpu.kernel_gamma_,
                                                                          cpu.mu_, cpu.nu_),
            "predictions: max relative difference":
                float(np.max(np.abs(pred - ref)) / max(np.max(np.abs(ref)), 1e-300))}


def measure_auto(d: _Dev, n: int, n_cpu: int, eigh_s: float | None) -> dict[str, Any]:
    """Table 5: ``AutoLSSVMRegressor`` (exact basis, the whole (γ, μ, ν) LOO search) on device
    arrays at ``n`` rows against one bare ``eigh`` of that order times the search's
    decompositions, and on the device against NumPy on the CPUs at ``n_cpu`` rows (one run
    each); the agreement of the two fits at ``n_cpu`` (selected values, predictions)."""
    import lssvm_cvx
    from lssvm_cvx import AutoLSSVMRegressor

    def fit(X: Any, y: Any) -> Any:
        with lssvm_cvx.array_api_dispatch():
            return AutoLSSVMRegressor(max_exact=max(n, n_cpu)).fit(X, y)

    row = _against_numpy(d, fit, n_cpu, seed=5)
    X, y = d.data(n, seed=6)
    t_big, big = _timed(d, fit, X, y)
    row.update({"N": n, f"device at N = {n} (s)": t_big,
                "decompositions of the search": int(big.search_["n_decompositions"])})
    if eigh_s is not None:
        row["bare eigh(K) at N (s)"] = eigh_s
        row["fit / (decompositions × bare eigh)"] = t_big / (
            (row["decompositions of the search"] + 1) * eigh_s)
    d.free()
    return row


def measure_auto_nystroem(d: _Dev, n: int, n_cpu: int) -> dict[str, Any]:
    """Table 6: ``AutoLSSVMRegressor`` with the Nyström basis (500 centres, the design streamed
    in blocks, LOO on 20 000 rows) on device arrays at ``n`` rows, and against NumPy on the
    CPUs at ``n_cpu`` rows (time, selection, predictions; one run each after an untimed
    round)."""
    import lssvm_cvx
    from lssvm_cvx import AutoLSSVMRegressor

    def fit(X: Any, y: Any) -> Any:
        with lssvm_cvx.array_api_dispatch():
            return AutoLSSVMRegressor(approximation="nystroem").fit(X, y)

    row = _against_numpy(d, fit, n_cpu, seed=7)
    X, y = d.data(n, seed=8)
    row.update({"N": n, f"device at N = {n} (s)": d.once(lambda: fit(X, y))})
    d.free()
    return row


def measure_agreement(d: _Dev, n: int) -> dict[str, Any]:
    """Table 0: the device's results against the same functions on NumPy arrays (the NumPy path
    is checked against brute-force refits and the dense hat matrix in ``tests/test_device.py``):
    the largest relative difference of each output."""
    from lssvm_cvx.device import (
        loo_gamma_path,
        loo_grid,
        lssvm_fit,
        lssvm_loo_residuals,
        nystroem_loo_path,
        rbf_gram,
    )

    X, y = d.data(n, seed=3)
    Xc, yc = X.cpu().numpy(), y.cpu().numpy()
    Z, Zc = X[: n // 10], Xc[: n // 10]

    def rel(a: Any, b: np.ndarray) -> float:
        a = np.asarray(a.cpu() if hasattr(a, "cpu") else a, dtype=float)
        return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))

    K, Kc = rbf_gram(X, sigma2=S2), rbf_gram(Xc, sigma2=S2)
    g3 = GAMMAS[::5]
    ref = nystroem_loo_path(Xc, yc, Zc, sigma2=S2, gammas=GAMMAS)
    return {"N": n,
            "Gram": rel(K, Kc),
            "α": rel(lssvm_fit(K, y, GAMMA)[0], lssvm_fit(Kc, yc, GAMMA)[0]),
            "LOO residuals": rel(lssvm_loo_residuals(K, y, GAMMA),
                                 lssvm_loo_residuals(Kc, yc, GAMMA)),
            "LOO γ path": rel(loo_gamma_path(K, y, GAMMAS), loo_gamma_path(Kc, yc, GAMMAS)),
            "LOO grid (3 γ × 2 σ²)": rel(loo_grid(X, y, g3, SIGMA2S[:2]),
                                          loo_grid(Xc, yc, g3, SIGMA2S[:2])),
            "Nyström LOO scores": rel(nystroem_loo_path(X, y, Z, sigma2=S2, gammas=GAMMAS).scores,
                                      ref.scores),
            # the round-off of the problem itself: two NumPy runs that differ only in the order
            # of the centres (the same model)
            "Nyström LOO scores, NumPy with the centres reversed":
                rel(nystroem_loo_path(Xc, yc, Zc[::-1], sigma2=S2, gammas=GAMMAS).scores,
                    ref.scores)}


@register("device", "The closed form on a GPU: lssvm_cvx.device vs bare PyTorch and NumPy",
          paper=None)
def run(ctx: Context) -> BenchResult:
    res = BenchResult("device", "The closed form on a GPU (lssvm_cvx.device)")
    torch = _cuda()
    if torch is None:
        res.notes = ("Skipped: no CUDA device (torch is not installed or torch.cuda.is_available() "
                     "is False). The device path is tested on the CPU under PyTorch and "
                     "array-api-strict (tests/test_device.py).")
        return res
    d = _Dev(torch, "cuda")
    fit_sizes = (2000, 4000) if ctx.quick else (10_000, 20_000, 40_000)
    path_sizes = fit_sizes[:2]
    grid_n = 2000 if ctx.quick else 20_000
    nys_n = 10**5 if ctx.quick else 10**7
    name = torch.cuda.get_device_name(0)
    d.data(100)                                                 # CUDA context up
    failed: list[str] = []

    def table(label: str, f: Any) -> Any:
        """One table's measurement; a failure is recorded (and fails its claim), not raised,
        so that the other tables of a device run are kept."""
        t0 = time.perf_counter()
        try:
            out = f()
        except Exception as exc:  # noqa: BLE001 - recorded in the notes and the claims
            failed.append(f"{label}: {type(exc).__name__}: {exc}")
            out = None
        print(f"device: {label} done in {time.perf_counter() - t0:.1f} s", flush=True)
        d.free()
        return out

    agree = table("agreement with NumPy", lambda: measure_agreement(d, 2000))
    if agree is not None:
        res.tables.append(Table("The device's results against NumPy's (largest relative "
                                "difference)", pd.DataFrame([agree]),
                                f"{name} against NumPy/SciPy on the CPUs; float64."))
    fits = table("exact fit", lambda: pd.DataFrame([measure_fit(d, n, cpu=n == fit_sizes[0])
                                                     for n in fit_sizes]))
    if fits is not None:
        res.tables.append(Table("Exact fit (seconds, interleaved medians of 3)", fits,
                                f"{name}; float64; RBF σ² = {S2:g}, γ = {GAMMA:g}, d = {D}."))
    paths = table("γ path", lambda: pd.DataFrame([measure_path(d, n) for n in path_sizes]))
    eigh_at: dict[Any, float] = {}
    if paths is not None:
        res.tables.append(Table("γ path (seconds, interleaved medians of 3)", paths, name))
        eigh_at = dict(zip(paths["N"], paths["bare PyTorch: eigh(K)"], strict=True))
    grid = table("(γ, σ²) grid", lambda: measure_grid(d, grid_n, eigh_at.get(grid_n)))
    if grid is not None:
        res.tables.append(Table(f"(γ, σ²) selection, {len(GAMMAS)} γ × {len(SIGMA2S)} σ² "
                                "(seconds, one run each)", pd.DataFrame([grid]),
                                f"{name}; σ² ∈ {{{', '.join(f'{s:.3g}' for s in SIGMA2S)}}}, γ "
                                f"from {GAMMAS[0]:g} to {GAMMAS[-1]:g}."))
    nys = table("Nyström", lambda: measure_nystroem(d, nys_n, 2000, 2**17))
    if nys is not None:
        res.tables.append(Table("Nyström, streamed (seconds, interleaved medians of 3)",
                                pd.DataFrame([nys]), f"{name}; float64 features and "
                                "accumulation; blocks of 2¹⁷ rows."))
    # AutoLSSVMRegressor imports lssvm_cvx.terms, which needs cvxpy: a GPU machine without it
    # skips the two Auto tables and says so (their checks are then not made)
    import importlib.util

    has_cvxpy = importlib.util.find_spec("cvxpy") is not None
    auto_n = path_sizes[0]
    auto = auto_nys = None
    if has_cvxpy:
        auto = table("Auto LS-SVM", lambda: measure_auto(d, auto_n, 1000 if ctx.quick else 2000,
                                                          eigh_at.get(auto_n)))
    if auto is not None:
        res.tables.append(Table("AutoLSSVMRegressor on device arrays (seconds, one run each "
                                "after an untimed round)", pd.DataFrame([auto]),
                                f"{name}; float64; the exact basis and the whole (γ, μ, ν) "
                                "leave-one-out search; the floor counts the search's "
                                "decompositions plus the final fit's factorisation as bare "
                                "eigendecompositions of the same order."))
        auto_nys = table("Auto LS-SVM, Nyström", lambda: measure_auto_nystroem(
            d, 10**5 if ctx.quick else 10**6, 5000 if ctx.quick else 50_000))
    if auto_nys is not None:
        res.tables.append(Table("AutoLSSVMRegressor, Nyström basis, on device arrays (seconds, "
                                "one run each after an untimed round)", pd.DataFrame([auto_nys]),
                                f"{name}; float64; 500 centres, the design streamed in blocks, "
                                "the exact LOO on 20 000 rows, the whole (γ, μ, ν) search."))
    nan = float("nan")
    res.check(f"exact fit at N = {fit_sizes[-1]}: lssvm_cvx.device / bare PyTorch",
              nan if fits is None else float(fits["fit / bare"].iloc[-1]), 1.3, unit="×")
    res.check(f"exact LOO selection over {len(GAMMAS) * len(SIGMA2S)} (γ, σ²) at N = {grid_n}, "
              "the faster method: bare eigendecompositions' time",
              nan if grid is None else min(grid["cholesky / bare eigh"], grid["eigh / bare eigh"]),
              3.0, unit="×")
    res.check(f"Nyström N = {nys_n}, m = 2000, exact LOO over {len(GAMMAS)} γ / one bare pass",
              nan if nys is None else float(nys["path / bare pass"]), 3.0, unit="×")
    res.check("the two grid methods agree (max relative difference of the scores)",
              nan if grid is None else grid["max relative difference of the two methods' scores"],
              1e-6)
    exact = ("Gram", "α", "LOO residuals", "LOO γ path", "LOO grid (3 γ × 2 σ²)")
    res.check("the device's exact-model results equal NumPy's (largest relative difference)",
              nan if agree is None else max(agree[k] for k in exact), 1e-10)
    res.check("the device's Nyström LOO scores against NumPy's / the spread of two NumPy runs "
              "(centre order)", nan if agree is None else
              agree["Nyström LOO scores"] / agree["Nyström LOO scores, NumPy with the centres "
                                                  "reversed"], 10.0, unit="×")
    for label, row in (("", auto), (" (Nyström)", auto_nys)) if has_cvxpy else ():
        res.check(f"AutoLSSVMRegressor{label} on the device selects the NumPy fit's (γ, μ, ν)",
                  nan if row is None else float(row["same (γ, μ, ν)"]), 1.0,
                  higher_is_better=True)
        res.check(f"AutoLSSVMRegressor{label} on the device: predictions against the NumPy "
                  "fit's (largest relative difference)",
                  nan if row is None else row["predictions: max relative difference"], 1e-8)
    notes = [("Failed (recorded, not raised): " + "; ".join(failed))] if failed else []
    if not has_cvxpy:
        notes.append("The AutoLSSVMRegressor tables were not run: cvxpy is not installed on "
                     "this machine (lssvm_cvx.terms needs it).")
    if grid is not None:
        p = grid["pairs"]
        naive = grid[f"bare: {p} × (Cholesky + solve_triangular(L, I))"] / grid["bare eigh(K)"]
        chol = grid[f"floor: {p} × bare Cholesky alone"] / grid["bare eigh(K)"]
        notes.append(
            f"The (γ, σ²) selection: one exact LOO score per pair needs a factorisation and the "
            f"diagonal of an inverse. On this device {p} bare Cholesky factors alone take "
            f"{chol:.2f} bare eigendecompositions (the floor of any Cholesky method) and "
            f"{p} × (Cholesky + solve_triangular(L, I)), bare PyTorch's direct way, take "
            f"{naive:.2f}; loo_grid(method='cholesky') forms diag(H⁻¹) by block forward "
            f"substitution in matrix products that skips the zero triangle of L⁻¹ and runs at "
            f"{grid['cholesky / its floor']:.2f}× the Cholesky floor, "
            f"{grid['cholesky / bare Cholesky + solve_triangular(L, I)']:.2f}× the direct way; "
            f"one eigendecomposition per σ² is {len(SIGMA2S)} of them.")
    res.notes = "\n\n".join(notes)
    res.meta["device"] = name
    res.meta["torch"] = torch.__version__
    return res
