"""Benchmarks that reproduce the papers' tables, one module per table or claim.

Each module registers functions with :func:`lssvm_cvx.bench.register`; ``lssvm-cvx bench``
discovers them.  Results (markdown, JSON, PNG) land in ``benchmarks/results/``.
"""
