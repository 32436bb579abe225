"""The BLAS-thread policy of the closed forms."""

from __future__ import annotations

__all__ = ["blas_limit"]


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
