"""The five papers the formulations implement: one record each, keyed as ``Reference.paper``
(the file name in ``shared/papers/``), used by the documentation, the benchmarks' summaries
and the command line.

DOIs are given where the shared copy of the paper prints one; the others name their venue.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Paper", "PAPERS", "paper_title"]


@dataclass(frozen=True)
class Paper:
    """A paper: ``key`` (``Reference.paper``), a short ``title`` for headings, the full
    ``citation`` and its ``doi`` (None where the shared copy prints none)."""

    key: str
    title: str
    citation: str
    doi: str | None = None

    @property
    def url(self) -> str | None:
        """``https://doi.org/<doi>``, or None."""
        return f"https://doi.org/{self.doi}" if self.doi else None


#: the papers, in the order the documentation lists them
PAPERS: dict[str, Paper] = {p.key: p for p in [
    Paper("areg-fusion-pelckmans-2006",
          "Additive regularization trade-off (Pelckmans, Suykens & De Moor 2006)",
          "K. Pelckmans, J. A. K. Suykens and B. De Moor. Additive regularization trade-off: "
          "fusion of training and validation levels in kernel methods. Machine Learning "
          "(Springer), published online 29 January 2006"),
    Paper("componentwise-lssvm-pelckmans",
          "Componentwise LS-SVMs (Pelckmans et al. 2005)",
          "K. Pelckmans, I. Goethals, J. De Brabanter, J. A. K. Suykens and B. De Moor. "
          "Componentwise least squares support vector machines. Book chapter in Support Vector "
          "Machines: Theory and Applications (L. Wang, ed.), Springer, 2005"),
    Paper("l2svm-regularization-path-bonidal-2013",
          "The ℓ2-SVM regularization path (Bonidal, Tindel & Guermeur 2013)",
          "R. Bonidal, S. Tindel and Y. Guermeur. Model selection for the ℓ2-SVM by following "
          "the regularization path. Transactions on Computational Collective Intelligence 13, "
          "pp. 83-112, 2013 (HAL hal-00849720)",
          "10.1007/978-3-642-54455-2_4"),
    Paper("multiobjective-model-selection-you-2014",
          "Multiobjective model selection (You, Benitez-Quiroz & Martinez 2014)",
          "D. You, C. F. Benitez-Quiroz and A. M. Martinez. Multiobjective optimization for "
          "model selection in kernel methods in regression. IEEE Transactions on Neural "
          "Networks and Learning Systems 25(10), pp. 1879-1893, 2014",
          "10.1109/TNNLS.2013.2297686"),
    Paper("auto-lssvm-sorber-2017", "Auto LS-SVM (Sorber 2017)",
          "L. Sorber. Auto LS-SVM. Technical note, 25 August 2017"),
]}


def paper_title(key: str | None) -> str:
    """The short title of paper ``key`` (the key itself when unknown; ``"the toolkit"`` for
    None: results about the harness or the package rather than a paper)."""
    if key is None:
        return "the toolkit (harness, selection)"
    return PAPERS[key].title if key in PAPERS else key
