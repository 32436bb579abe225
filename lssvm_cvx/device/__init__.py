"""The closed form on any array namespace and device (issue 31, first step): the LS-SVM's fit,
exact leave-one-out residuals and LOO γ path on NumPy, PyTorch (CPU or CUDA), CuPy or
``array-api-strict`` arrays, results on the inputs' device (:mod:`.lssvm`), and the namespace,
device, dtype and memory checks behind them (:mod:`.arrays`).  Needs ``array-api-compat``."""

from .arrays import check_memory, float_dtype, free_bytes, namespace_of, solve_triangular
from .lssvm import loo_gamma_path, lssvm_fit, lssvm_loo_residuals, rbf_gram

__all__ = ["namespace_of", "float_dtype", "solve_triangular", "free_bytes", "check_memory",
           "rbf_gram", "lssvm_fit", "lssvm_loo_residuals", "loo_gamma_path"]
