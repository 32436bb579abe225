"""Parameter and attribute documentation shared by the componentwise estimators
(:mod:`lssvm_cvx.estimators.componentwise`; componentwise LS-SVM chapter, eq. 3-9, 20-25,
30, 38)."""

__all__ = ["DOC_PARAMS", "DOC_ATTRS"]

DOC_PARAMS = """
    kernel :
        ``"rbf"`` (``exp(-||x-z||²/sigma2)`` per column), ``"linear"``, ``"poly"``, a
        :class:`~lssvm_cvx.kernels.Kernel` (applied to every column), a list of those (one
        candidate component per column *and* kernel, e.g. ``["rbf", "linear"]``), or a
        :class:`~lssvm_cvx.kernels.Componentwise` (used as is, e.g. with column groups).
    sigma2 :
        RBF width σ² > 0 of the components named ``"rbf"`` (the same for every component, as
        in the chapter).  ``None`` (default): chosen with γ by exact ``cv``-fold CV of the
        componentwise LS-SVM over the median column variance × (1, 3, 10, 30, 100) (§5: "the
        kernel parameter (taken to be constant over the components) ... tuned using 10-fold
        cross-validation").  A kernel object keeps its own widths (no width is searched; a
        list that names ``"rbf"`` beside a kernel object holding a width needs ``sigma2``).
    gamma :
        Regularization constant γ > 0 of eq. (4) (``penalty=None``); the start ``η = γ 1`` of
        ``"fusion_eta"``.  ``None`` (default): chosen with σ² by that CV over
        ``logspace(-2, 4, 13)``.  The search is the composed estimator's
        (``RegularizedLSSVMRegressor`` with ``RKHSNorm`` of weight ``1/γ`` on the
        componentwise kernel): the mean squared error of each fold, averaged over the folds
        as ``GridSearchCV`` does, every γ of a width from one factorisation.
    degree, t :
        Polynomial kernel degree and offset.
    penalty :
        ``None``, ``"l1"``, ``"stp"``, ``"fusion_areg"`` or ``"fusion_eta"`` (module table).
    xi :
        Trade-off ξ > 0 of eq. (20) / (30).  ``None`` (default): ``cv``-fold CV over
        ``logspace(-0.5, 2.5, 7) / std(y)`` (or ``cv_grid``) with ``cv_rule``.
    lam, a :
        λ > 0 and a > 0 of the smoothly thresholding penalty (24) (a = 3.7 in the chapter).
        ``lam=None`` (default): ``cv``-fold CV over ``||y - ȳ||² × logspace(0, -2, 7)`` (or
        ``cv_grid``) with ``cv_rule``.  The grid is relative to ``||y - ȳ||²`` because a
        selected component saturates the penalty (s_d = ||Ŷ^d||_1 ≫ 1/a) and then costs
        ``λ/2`` against ``½||e||²``.
    cv :
        Number of folds of the hyperparameter CV (default 10, §5; at most ``N // 2``), or a
        list of held-out index arrays that partition the samples (the test sets), or
        scikit-learn's ``(train, test)`` pairs of such a partition
        (``list(KFold(5).split(X))``).
    cv_rule :
        ``"one_se"`` (default): the most regularized value whose mean CV error is within one
        standard error of the minimum (the standard guard against the over-selection of a
        CV-tuned sparsity penalty; Hastie et al. 2001, §7.10); ``"min"``: the minimum mean CV
        error (the chapter's wording).  ``cv_results_`` holds both indices.
    cv_grid :
        Grid of λ (``"stp"``) or ξ (``"l1"``, ``"fusion_areg"``) for the CV (default above).
    validation_fraction :
        Share of the data held out as validation set by the fusion penalties.
    solver :
        cvxpy solver of the QPs (``"l1"``, ``"fusion_areg"``).
    rank_tol :
        Truncation of the component Grams for the sparse formulations
        (:class:`~lssvm_cvx.formulations.componentwise.ComponentBasis`).
    selection_tol :
        A component is selected when ``||Ŷ^d||_2 > selection_tol · ||y - mean(y)||_2`` (eq. 22).
    gnc_start :
        First GNC stage: ``"l2"`` (default; Algorithm 1 literally: least squares) or ``"l1"``
        (the penalty's convex tangent at 0, slope ``λa``); see
        :func:`~lssvm_cvx.formulations.componentwise_gnc.gnc` for how they differ.
    start_weights :
        Weights ``w_d`` of the least-squares start of GNC, ``ρ Σ_d w_d ||Ŷ^d||²``
        (``penalty="stp"``, ``gnc_start="l2"``; eq. 25 itself is unchanged).
        ``"kernel_dof"`` (default): each kernel type weighted by the mean number of free
        directions of its components (centred rank of the component Gram), divided by the
        largest (:func:`~lssvm_cvx.formulations.componentwise_gnc.kernel_dof_weights`), so that
        candidates of different types (``kernel=["rbf", "linear"]``) start with the same
        budget; with a single kernel every weight is 1 (Algorithm 1 as printed).  ``"equal"``
        or ``None``: all ones.  An array: used as given.  With several candidate kernels per
        input, GNC is followed by
        :func:`~lssvm_cvx.selection.gnc.prune_overlaps` (support moves that lower eq. 25).
    gnc_options :
        Extra keyword arguments of :func:`~lssvm_cvx.formulations.componentwise_gnc.gnc`
        (defaults here: ``max_inner=30, max_final=5000, tol_stationarity=1e-6``).  A fit whose
        last GNC stage does not reach ``tol_stationarity`` warns (``ConvergenceWarning``) and
        sets ``converged_ = False``.
    random_state :
        Seed of the validation split (and of the CV folds).
    kernel_choice :
        ``"cv"`` (default): when several candidate kernels share an input (``kernel=["rbf",
        "linear"]``), the sparse fit (any ``penalty`` but ``None``) selects the inputs, and the
        kernel of every selected input is then chosen by paired exact leave-one-out of the
        componentwise LS-SVM with ``cv_rule`` (``"one_se"``: the candidate with the fewest free
        directions — linear before RBF — unless another lowers the LOO error by more than one
        paired standard error); the model is the componentwise LS-SVM (eq. 16) refitted on the
        chosen components (:func:`~lssvm_cvx.selection.kernel_choice.choose_kernels`; the
        module docstring there says why).  No effect with one kernel per input.  ``None``: the
        sparse fit's own components and coefficients (eq. 22 as printed).
"""

DOC_ATTRS = """
    component_coef_ : ndarray of shape (n_fit, P)
        Coefficient vector of every component: ``f^d(x) = Σ_k component_coef_[k, d]
        K^d(x_k^d, x^d)`` (all columns equal α for ``penalty=None``, eq. 8).
    intercept_ : float
        The bias ``b``.
    selected_components_ : ndarray of int
        ``S_D`` (eq. 22): indices into :attr:`component_labels_`.
    component_labels_ : list of (columns, kernel name)
        What each component is (input column(s) and kernel type).
    kernel_ : Componentwise
        The componentwise kernel used.
    X_fit_ : ndarray
        Training inputs the components expand on (the training part for fusion).
    history_ : list of dict or None
        GNC history (``"stp"``) or η-fusion history (``"fusion_eta"``).
    eta_ : ndarray
        Final η (``"fusion_eta"`` only).
    sigma2_, gamma_ : float
        The σ² and γ used (given or chosen by CV); ``sigma2_`` is 1.0 when no component is
        named ``"rbf"`` (a kernel object keeps its own widths).
    reg_ : float or None
        The λ (``"stp"``) or ξ (``"l1"``, ``"fusion_areg"``) used (given or chosen by CV).
    cv_results_ : dict
        ``"gamma_sigma2"``: the (γ, σ²) search (``GridSearchCV``'s keys, and the grid view
        ``gammas``, ``sigma2s``, ``scores`` — one row per σ² —, ``best_gamma``,
        ``best_sigma2``, ``best_score``, ``criterion``); ``"lam"`` / ``"xi"``: grid, mean and standard
        error of the CV error, ``index_min``, chosen ``index``, mean number of selected
        components per grid value.
    start_weights_ : ndarray
        The GNC start weights ``w_d`` used (``"stp"`` only).
    prune_log_ : list of dict
        ``"stp"`` with several candidate kernels per input: the support moves tried after GNC
        (:func:`~lssvm_cvx.selection.gnc.prune_overlaps`; only moves that lower eq. 25 are
        kept).
    kernel_choice_ : dict or None
        ``kernel_choice="cv"`` with several candidate kernels per input: the chosen
        components, the refit's γ and CV error, and per input visit the candidates' mean CV
        error, paired standard error and complexity (``KernelChoice.to_dict``); else None.
    converged_, n_iter_ :
        Whether GNC met its stationarity tolerance and how many weighted least-squares steps
        it took (``"stp"``; True / 0 for the other penalties).
"""
