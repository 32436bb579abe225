"""The BLAS-thread policy of the closed forms: the one place that decides how many BLAS threads
a computation gets."""

from __future__ import annotations

__all__ = ["SMALL_SYSTEM", "blas_limit", "small_system_blas"]

#: systems (matrix order, basis size or number of rows) below this size run with one BLAS
#: thread: their many small factorizations and products only pay the threads' start-up and
#: contention (measured 30x slower at size 200 on a loaded 2-core machine, and a 200 × 200
#: Cholesky up to 100x slower with multithreaded OpenBLAS).  The Auto LS-SVM used 600 and the
#: componentwise drivers 800 before this policy; 800 is kept, the larger, since both
#: measurements showed the single thread still winning at 600.
SMALL_SYSTEM = 800


def blas_limit(threads: int | None):
    """Context limiting BLAS threads (None: leave as is).

    The path performs many small factorizations; multi-threaded BLAS only adds overhead to them
    (and on a loaded machine OpenBLAS threads can make a 200 × 200 Cholesky 100× slower), so
    the path and the fixed-λ solver run with one BLAS thread by default."""
    if threads is None:
        from contextlib import nullcontext

        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(threads), user_api="blas")


def small_system_blas(n: int):
    """The policy: one BLAS thread for a system of size ``n < SMALL_SYSTEM``, the global
    setting otherwise (a context manager)."""
    return blas_limit(1 if int(n) < SMALL_SYSTEM else None)
