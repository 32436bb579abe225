"""The closed form on any array namespace and device (issue 31): the LS-SVM's fit, exact
leave-one-out residuals, LOO γ path and (γ, σ²) grid (:mod:`.lssvm`), the streamed Nyström fit
and the random-Fourier-feature fit with their exact LOO over γ (:mod:`.nystroem`,
:mod:`.rff`), on NumPy, PyTorch (CPU or CUDA), CuPy or
``array-api-strict`` arrays with results on the inputs' device, and the namespace, device,
dtype and memory checks behind them (:mod:`lssvm_cvx.linalg.arrays`, below the engines, and
:mod:`.arrays`).  Needs ``array-api-compat``."""

from ..linalg.arrays import (
    check_memory,
    float_dtype,
    free_bytes,
    inverse_diagonal,
    namespace_of,
    solve_triangular,
)
from .arrays import array_api_dispatch, dispatching, foreign_array, on_accelerator, positive
from .lssvm import (
    check_system_inputs,
    loo_gamma_path,
    loo_grid,
    loo_path_residuals,
    lssvm_fit,
    lssvm_loo_residuals,
    rbf_gram,
)
from .nystroem import NystroemFeatures, NystroemPath, nystroem_loo_path
from .rff import FourierFeatures, RFFPath, rff_loo_path

__all__ = ["array_api_dispatch", "dispatching", "foreign_array", "on_accelerator",
           "namespace_of", "float_dtype", "positive",
           "solve_triangular", "free_bytes", "check_memory", "check_system_inputs", "rbf_gram", "lssvm_fit",
           "lssvm_loo_residuals", "loo_gamma_path", "loo_grid", "loo_path_residuals",
           "inverse_diagonal", "NystroemFeatures", "NystroemPath",
           "nystroem_loo_path", "FourierFeatures", "RFFPath", "rff_loo_path"]
