"""Model selection: short driver loops over the builders and closed forms.

* :mod:`.lssvm` — exact LOO / k-fold / GCV of the LS-SVM, γ sweeps and the (γ, σ²) search;
* :mod:`.auto` — the Auto LS-SVM search over (γ, μ, ν);
* :mod:`.l2svm_path`, :mod:`.l2svm_criteria` — the ℓ2-SVM regularization path, span LOO and
  the radius-margin bound;
* :mod:`.pareto`, :mod:`.pareto_nlp`, :mod:`.multiobjective` — Pareto fronts, the ideal-point
  choice and the KRR / KPCR model selection of the multiobjective paper;
* :mod:`.gnc` — the graduated non-convexity driver; :mod:`.eta_als` — η-fusion by
  alternating least squares.
"""
