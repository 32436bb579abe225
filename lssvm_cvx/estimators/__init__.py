"""scikit-learn compatible estimators, one module per paper (imported lazily by
:mod:`lssvm_cvx`)."""
