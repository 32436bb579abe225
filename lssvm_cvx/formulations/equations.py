r"""The papers' equations in LaTeX, by formulation name, for the documentation pages.

A formulation's page shows ``reference.latex`` when its :class:`~.base.Reference` sets one
(the way for a new formulation) and otherwise the entry of :data:`LATEX` below.  Each entry maps
a label (the keys of ``reference.equations`` where they match) to one display equation;
``\tag{n}`` carries the paper's equation number.  :data:`CLOSED_FORM` holds, for formulations
with a closed form, its derivation in a few lines of reStructuredText (math in backquotes).

Notation: :math:`\Omega_{ij} = K(x_i, x_j)`, :math:`\mathbf 1` the vector of ones,
:math:`\Omega_y = \operatorname{diag}(y)\,\Omega\,\operatorname{diag}(y)`, :math:`\Omega^v` the
validation-by-training Gram, :math:`\Omega^d` the Gram of input component :math:`d`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LATEX", "CLOSED_FORM", "latex_of", "closed_form_of", "to_unicode", "unicode_of"]

_LSSVM_DUAL = (r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I/\gamma \end{bmatrix}"
               r"\begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ y \end{bmatrix}")
_AREG_DUAL = (r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I \end{bmatrix}"
              r"\begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ y - c \end{bmatrix}")
_FUSION = (r"\min_{c,\alpha,b,e^v}\ \tfrac12\|e^v\|^2 + \tfrac12\|\alpha + c\|^2 \quad"
           r"\text{s.t.}\ (\Omega + I)\alpha + \mathbf 1 b + c = y,\ \ \mathbf 1^\top\alpha = 0,\ \ "
           r"\Omega^v\alpha + \mathbf 1 b + e^v = y^v")
_FAST_CV = (r"\min_{\alpha,b,\bar e,e^v}\ \|\bar e\|^2 + \xi\|\bar e - e^v\|^2 \quad \text{s.t.}\ "
            r"\mathbf 1^\top\alpha = 0,\ \ \Big[\tfrac{L-2}{L-1}\Omega + \tfrac{1}{L-1}\Omega_{CV}\Big]"
            r"\alpha + \mathbf 1 b + \bar e = y,\ \ \tfrac{L\Omega_{CV} - \Omega}{L-1}\alpha"
            r" + \bar e - e^v = 0")
_CW_PRIMAL = (r"\min_{w_d,b,e}\ \tfrac12\sum_{d=1}^P w_d^\top w_d + \tfrac\gamma2\sum_{k=1}^N e_k^2"
              r" \quad\text{s.t.}\ \sum_{d=1}^P w_d^\top\varphi_d(x_k^d) + b + e_k = y_k")
_CW20 = (r"\min_{\hat Y^d,\alpha,b,e}\ \tfrac12\sum_{d=1}^P\|\hat Y^d\|_1 + \tfrac\xi2\|e\|^2"
         r" \quad\text{s.t.}\ \Omega^d\alpha = \hat Y^d\ (d = 1..P),\ \ \mathbf 1^\top\alpha = 0,"
         r"\ \ \sum_d \hat Y^d + \mathbf 1 b + e = y")
_EF = r"E_f(\alpha) = \tfrac{1}{2n}\|y - K\alpha\|^2"
_EC = (r"E_c(f) = \int \big(f''(x)\big)^2\,dx \;\to\; E_c^+(\alpha) = \|L^\top\alpha\|^2 - q^\top\alpha"
       r" + \tfrac12\ \ (\text{convex majorant},\ M_+ = LL^\top)")
_AUTO = (r"\min_{\alpha,b,e}\ \|e\|^2 + \mu\,\alpha^\top G\alpha + \nu\,\alpha^\top R\alpha\quad"
         r"\text{s.t.}\ K\alpha + b\mathbf 1 + e = y")
_L2SVM_P1 = (r"\min_{\bar h, b, \xi}\ \|\xi\|^2 + \tfrac\lambda2\|\bar h\|_\kappa^2\quad"
             r"\text{s.t.}\ y_i\big(\bar h(x_i) + b\big) \ge 1 - \xi_i")
_L2SVM_P2 = (r"\max_{\alpha}\ -\tfrac12\alpha^\top H(\lambda)\alpha + \mathbf 1^\top\alpha\quad"
             r"\text{s.t.}\ \alpha \ge 0,\ y^\top\alpha = 0,\qquad H(\lambda) = "
             r"\operatorname{diag}(y)K\operatorname{diag}(y) + \tfrac\lambda2 I")

#: formulation name -> {label: display LaTeX}
LATEX: dict[str, dict[str, str]] = {
    "lssvm": {
        "primal": r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac\gamma2\sum_{i=1}^N e_i^2\quad"
                  r"\text{s.t.}\ w^\top\varphi(x_i) + b + e_i = y_i \tag{1}",
        "dual system": _LSSVM_DUAL + r" \tag{2}",
    },
    "weighted_lssvm": {
        "primal": r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac12\sum_{i=1}^N \gamma_i e_i^2\quad"
                  r"\text{s.t.}\ w^\top\varphi(x_i) + b + e_i = y_i \tag{74}",
        "dual system": r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I_\Gamma"
                       r"\end{bmatrix}\begin{bmatrix} b \\ \alpha \end{bmatrix} = "
                       r"\begin{bmatrix} 0 \\ y \end{bmatrix},\quad I_\Gamma = "
                       r"\operatorname{diag}(1/\gamma_i) \tag{75}",
    },
    "lssvm_classifier": {
        "primal": r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac\gamma2\sum_i e_i^2\quad\text{s.t.}\ "
                  r"y_i\big(w^\top\varphi(x_i) + b\big) = 1 - e_i \tag{A.1}",
        "dual system": r"\begin{bmatrix} 0 & y^\top \\ y & \Omega_y + I/\gamma \end{bmatrix}"
                       r"\begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ "
                       r"\mathbf 1 \end{bmatrix} \tag{57}",
    },
    "areg": {
        "primal": r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac12\sum_{i=1}^N (e_i - c_i)^2\quad"
                  r"\text{s.t.}\ w^\top\varphi(x_i) + b + e_i = y_i \tag{8}",
        "dual system": _AREG_DUAL + r" \tag{9}",
        "optimality": r"e_i = c_i + \alpha_i \tag{11}",
    },
    "areg_classifier": {
        "primal": r"\min_{w,b,e}\ \tfrac12 w^\top w + \tfrac12\sum_i (e_i - c_i)^2\quad\text{s.t.}"
                  r"\ y_i\big(w^\top\varphi(x_i) + b\big) = 1 - e_i \tag{59}",
        "dual system": r"\begin{bmatrix} 0 & y^\top \\ y & \Omega_y + I \end{bmatrix}"
                       r"\begin{bmatrix} b \\ \alpha \end{bmatrix} = \begin{bmatrix} 0 \\ "
                       r"\mathbf 1 - c \end{bmatrix} \tag{60, corrected}",
    },
    "areg_fusion": {
        "fusion": _FUSION + r" \tag{15}",
        "eliminated": r"\min_{\alpha,b}\ \tfrac12\|\Omega^v\alpha + \mathbf 1 b - y^v\|^2 + "
                      r"\tfrac12\|\Omega\alpha + \mathbf 1 b - y\|^2\quad\text{s.t.}\ "
                      r"\mathbf 1^\top\alpha = 0 \tag{16}",
    },
    "areg_classifier_fusion": {
        "fusion system": r"\min\ \tfrac12\|e^v\|^2 + \tfrac12\|\alpha + c\|^2\quad\text{s.t.}\ "
                         r"(\Omega_y + I)\alpha + y b + c = \mathbf 1,\ y^\top\alpha = 0,\ "
                         r"\Omega^v_y\alpha + y^v b + e^v = \mathbf 1 \tag{62, corrected}",
    },
    "areg_ensemble": {
        "nodes": r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I/\gamma_k"
                 r"\end{bmatrix}\begin{bmatrix} b_k \\ \alpha_k \end{bmatrix} = "
                 r"\begin{bmatrix} 0 \\ y \end{bmatrix},\quad k = 1..m \tag{21}",
        "convex set": r"\alpha = \sum_k\lambda_k\alpha_k,\ \ b = \sum_k\lambda_k b_k,\ \ "
                      r"c = \sum_k\lambda_k(\gamma_k^{-1} - 1)\alpha_k,\quad \lambda\in\Delta_m "
                      r"\tag{22-24}",
        "fusion": r"\min_{\lambda\in\Delta_m}\ \Big\|\sum_k\lambda_k(\Omega^v\alpha_k + "
                  r"\mathbf 1 b_k) - y^v\Big\|^2 \tag{26-28}",
    },
    "areg_classifier_ensemble": {
        "nodes": r"(\Omega_y + I/\gamma_k)\alpha_k + y b_k = \mathbf 1,\ \ y^\top\alpha_k = 0 "
                 r"\tag{63}",
        "second layer": r"\min_{\lambda\in\Delta_m}\ \Big\|\sum_k\lambda_k\big(\Omega^v_y\alpha_k"
                        r" + y^v b_k\big) - \mathbf 1_n\Big\|^2 \tag{64}",
    },
    "areg_cv": {
        "per fold": r"(\Omega_{T_l} + I)\alpha^{(l)} + \mathbf 1 b^{(l)} + c_{T_l} = y_{T_l},\ \ "
                    r"\mathbf 1^\top\alpha^{(l)} = 0,\ \ \Omega_{V_lT_l}\alpha^{(l)} + \mathbf 1 "
                    r"b^{(l)} + e^v_{V_l} = y_{V_l} \tag{29-32}",
        "criterion": r"\min_{c,\alpha^{(l)},b^{(l)},e^v}\ \tfrac12\sum_{l=1}^L\|\alpha^{(l)} + "
                     r"c_{T_l}\|^2 + \tfrac12\|e^v\|^2 \tag{34, 37}",
    },
    "areg_classifier_cv": {
        "per fold": r"(\Omega_{y,T_l} + I)\alpha^{(l)} + y_{T_l} b^{(l)} + c_{T_l} = \mathbf 1,"
                    r"\ \ y_{T_l}^\top\alpha^{(l)} = 0 \tag{59-61}",
        "criterion": r"\min\ \tfrac12\sum_l\|\alpha^{(l)} + c_{T_l}\|^2 + \tfrac12\|e^v\|^2 "
                     r"\tag{34}",
    },
    "areg_fast_cv": {
        "Omega_CV": r"\Omega_{CV} = \operatorname{blockdiag}\big(\Omega_{V_1V_1}, \dots, "
                    r"\Omega_{V_LV_L}\big) \tag{45}",
        "fusion": _FAST_CV + r" \tag{52, corrected}",
        "model": r"f(x) = \tfrac{L-1}{L}\sum_i\alpha_i K(x_i, x) + b \tag{41}",
    },
    "areg_classifier_fast_cv": {
        "system": r"\text{(52) with } \Omega_y,\ \Omega_{CV,y},\ \text{border } y,\ "
                  r"\text{right-hand side } \mathbf 1_N \tag{67-68}",
        "criterion": r"\min\ \|\bar e\|^2 + \xi\|\bar e - e^v\|^2 \tag{69}",
    },
    "areg_stability": {
        "criterion": r"\min\ \|\bar e\|_2 + \xi\,\|\bar e - e^v\|_\infty\quad\text{s.t. the "
                     r"constraints of (52)} \tag{56}",
    },
    "componentwise_lssvm": {
        "primal": _CW_PRIMAL + r" \tag{4}",
        "dual system": r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \sum_d\Omega^d + "
                       r"I/\gamma \end{bmatrix}\begin{bmatrix} b \\ \alpha \end{bmatrix} = "
                       r"\begin{bmatrix} 0 \\ y \end{bmatrix} \tag{7}",
        "components": r"\hat f_d(x^d) = \sum_k\alpha_k K^d(x_k^d, x^d) \tag{9}",
    },
    "componentwise_lssvm_classifier": {
        "primal": r"\min\ \tfrac12\sum_d w_d^\top w_d + \tfrac\gamma2\sum_k e_k^2\quad\text{s.t.}"
                  r"\ y_k\Big(\sum_d w_d^\top\varphi_d(x_k^d) + b\Big) = 1 - e_k \tag{15}",
        "dual system": r"\begin{bmatrix} 0 & y^\top \\ y & \sum_d\Omega_y^d + I/\gamma"
                       r"\end{bmatrix}\begin{bmatrix} b \\ \alpha \end{bmatrix} = "
                       r"\begin{bmatrix} 0 \\ \mathbf 1 \end{bmatrix} \tag{16}",
    },
    "componentwise_areg": {
        "primal": r"\min\ \tfrac12\sum_d w_d^\top w_d + \tfrac12\sum_k(e_k - c_k)^2\quad\text{s.t.}"
                  r"\ \sum_d w_d^\top\varphi_d(x_k^d) + b + e_k = y_k \tag{18}",
        "dual system": r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega + I"
                       r"\end{bmatrix}\begin{bmatrix} b \\ \alpha \end{bmatrix} = "
                       r"\begin{bmatrix} 0 \\ y - c \end{bmatrix},\ \ \Omega = \sum_d\Omega^d "
                       r"\tag{19}",
    },
    "componentwise_l1": {
        "problem": _CW20 + r" \tag{20}",
        "selected set / prediction": r"\hat f(x) = \sum_{d\in S}\sum_k\alpha_k K^d(x_k^d, x^d)"
                                     r" + b,\ \ S = \{d : \hat Y^d \ne 0\} \tag{22}",
    },
    "componentwise_l2": {
        "problem": _CW20.replace(r"\|\hat Y^d\|_1", r"\|\hat Y^d\|_2^2") + r" \tag{20, L2}",
    },
    "componentwise_fusion": {
        "problem": r"\min\ \tfrac12\sum_d\|\hat Y^{(v)d}\|_1 + \tfrac12\sum_d\|\hat Y^d\|_1 + "
                   r"\tfrac\xi2\|e\|^2\ \ \text{s.t. (20) and } \Omega^{(v)d}\alpha = "
                   r"\hat Y^{(v)d} \tag{30}",
    },
    "componentwise_stp": {
        "penalty": r"\ell_{\lambda,a}(u) = \begin{cases} \lambda|u| & |u|\le\lambda \\ "
                   r"-\frac{u^2 - 2a\lambda|u| + \lambda^2}{2(a-1)} & \lambda < |u|\le a\lambda "
                   r"\\ \frac{(a+1)\lambda^2}{2} & |u| > a\lambda\end{cases} \tag{24}",
        "problem": r"\min\ \sum_d\sum_k\ell_{\lambda,a}\big(\hat Y^d_k\big) + \tfrac12\|e\|^2"
                   r"\quad\text{s.t. the constraints of (20)} \tag{25}",
        "reweighting": r"\min\ \tfrac12\sum_{d,k}\big(\nu_{dk}\hat Y^d_k\big)^2 + \tfrac12\|e\|^2,"
                       r"\quad \nu_{dk}^2 = \frac{\ell'_{\lambda,a}(|\hat Y^d_k|)}{|\hat Y^d_k| "
                       r"+ \epsilon} \tag{41-43}",
    },
    "componentwise_eta": {
        "primal": r"\min\ \tfrac12\sum_d \frac{w_d^\top w_d}{\eta_d} + \tfrac12\sum_k e_k^2\quad"
                  r"\text{s.t.}\ \sum_d w_d^\top\varphi_d(x_k^d) + b + e_k = y_k \tag{31}",
        "dual system": r"\begin{bmatrix} 0 & \mathbf 1^\top \\ \mathbf 1 & \Omega^\eta + I"
                       r"\end{bmatrix}\begin{bmatrix} b \\ \alpha^\eta \end{bmatrix} = "
                       r"\begin{bmatrix} 0 \\ y \end{bmatrix},\ \ \Omega^\eta = \sum_d\eta_d"
                       r"\Omega^d \tag{34}",
        "prediction": r"\hat f(x) = \sum_k\alpha^\eta_k\sum_d\eta_d K^d(x_k^d, x^d) + b \tag{35}",
    },
    "l2svm_primal": {
        "primal": _L2SVM_P1 + r" \tag{Problem 1}",
        "classifier": r"h(x) = \sum_i\alpha_i y_i\kappa(x_i, x) + \alpha_0 \tag{2}",
    },
    "l2svm_dual": {
        "dual": _L2SVM_P2 + r" \tag{Problem 2}",
        "closed form": r"\begin{bmatrix} 0 & y_E^\top \\ y_E & H_{EE}(\lambda)\end{bmatrix}"
                       r"\begin{bmatrix}\alpha_0 \\ \alpha_E\end{bmatrix} = \begin{bmatrix} 0 "
                       r"\\ \mathbf 1\end{bmatrix},\ \ E = \{i : y_i h_\lambda(x_i) < 1\} \tag{7}",
    },
    "l2svm_radius": {
        "radius-margin bound": r"R^2(\lambda) = \max_{\beta\ge 0,\ \mathbf 1^\top\beta = 1}\ "
                               r"\sum_i\beta_i\kappa_\lambda(x_i,x_i) - \beta^\top K_\lambda\beta,"
                               r"\quad T(\lambda) = \tfrac4m R^2(\lambda)\|\tilde w\|^2 "
                               r"\tag{Thm 1}",
    },
    "pareto_krr_alpha": {
        "E_f": _EF + r" \tag{12}",
        "E_c": _EC + r" \tag{16-17}",
        "modified eps-constraint": r"\min_{\alpha,h}\ E_f(\alpha) + s\,h\quad\text{s.t.}\ "
                                   r"E_c^+(\alpha)\le h\,\varepsilon,\ \ 0\le h\le s \tag{25-26}",
    },
    "pareto_krr_alpha_eps": {
        "E_f": _EF + r" \tag{12}",
        "eps-constraint": r"\min_\alpha\ E_f(\alpha)\quad\text{s.t.}\ E_c^+(\alpha)\le"
                          r"\varepsilon \tag{24}",
    },
    "pareto_krr_sum": {
        "sum criterion": r"\min_\alpha\ E_f(\alpha) + \nu\,E_c^+(\alpha) \tag{29}",
        "KRR": r"\alpha = (K + \lambda I)^{-1}y,\quad \lambda = 2n\nu\ \ (E_c = \alpha^\top K"
               r"\alpha) \tag{33}",
    },
    "auto_lssvm": {
        "model": r"f(x) = \sum_i\alpha_i e^{-\gamma\|x - x_i\|^2} + b \tag{8}",
        "objective": _AUTO + r" \tag{9}",
        "regularizer": r"\alpha^\top G\alpha = \int\|\nabla f(x)\|^2\,dx \tag{41}",
    },
    "auto_lssvm_classifier": {
        "objective": r"\min\ \|e\|^2 + \mu\,\alpha^\top G\alpha + \nu\,\alpha^\top R\alpha"
                     r"\quad\text{s.t.}\ y\circ(K\alpha + b\mathbf 1) + e = \mathbf 1 "
                     r"\tag{9, §1.1}",
    },
    "regularized_lssvm": {
        "composition": r"\min_{\alpha,b}\ L(y, K\alpha + b\mathbf 1) + \sum_k w_k T_k(\alpha),"
                       r"\quad w_k\ge 0",
        "LS-SVM": r"L = \tfrac12\|y - K\alpha - b\mathbf 1\|^2,\quad T = \tfrac12\alpha^\top K"
                  r"\alpha,\ \ w = 1/\gamma \tag{1}",
    },
    "regularized_lssvm_l1": {
        "composition": r"\min_{\alpha,b}\ L(y, K\alpha + b\mathbf 1) + \sum_k w_k T_k(\alpha)"
                       r" + w_1\|\alpha\|_1",
    },
}

#: formulation name -> derivation of the closed form (reStructuredText, a few lines)
CLOSED_FORM: dict[str, str] = {
    "lssvm": (
        "The Lagrangian of (1) with multipliers `\\alpha` gives `w = \\sum_i \\alpha_i "
        "\\varphi(x_i)`, `\\mathbf 1^\\top\\alpha = 0` and `\\gamma e_i = \\alpha_i`; "
        "substituting into the constraints gives (2). With `H = \\Omega + I/\\gamma = LL^\\top` "
        "(one Cholesky factor), `\\nu = H^{-1}\\mathbf 1`, `\\rho = H^{-1}y`, the bias is the Schur "
        "complement `b = \\mathbf 1^\\top\\rho / \\mathbf 1^\\top\\nu` and `\\alpha = \\rho - b\\nu`."),
    "areg": (
        "Stationarity of the Lagrangian of (8) gives `w = \\sum_i\\alpha_i\\varphi(x_i)`, "
        "`\\mathbf 1^\\top\\alpha = 0` and `e_i - c_i = \\alpha_i` (11); eliminating `e` gives (9), "
        "the LS-SVM system with `\\gamma = 1` and right-hand side `y - c`: one Cholesky factor "
        "of `\\Omega + I` serves every `c`."),
    "areg_fusion": (
        "Eliminating `c` (training rows) and `e^v` (validation rows) leaves (16), least squares "
        "in `(\\alpha, b)` with `M = [[\\Omega, \\mathbf 1], [\\Omega^v, \\mathbf 1]]` (17) under "
        "`\\mathbf 1^\\top\\alpha = 0`: one bordered system on `M^\\top M` (19). Then "
        "`c = (y - \\Omega\\alpha - b) - \\alpha` and `e^v = y^v - \\Omega^v\\alpha - b`."),
    "areg_ensemble": (
        "Each node is an LS-SVM (21): one factorization per `\\gamma_k`. The second layer (28) "
        "is least squares over the simplex in `m` unknowns, solved exactly by enumerating "
        "active faces; `\\alpha, b, c` follow from (22)-(24)."),
    "areg_fast_cv": (
        "Eliminating `\\bar e` and `e^v` from (52) leaves least squares in `(\\alpha, b)` under "
        "`\\mathbf 1^\\top\\alpha = 0`, solved as one bordered system; `c = \\bar e - \\alpha` "
        "(50a)."),
    "componentwise_lssvm": (
        "With `\\Omega = \\sum_d\\Omega^d` the dual (7) is the LS-SVM system (2) of the summed "
        "kernel (12): one Cholesky factor and the Schur complement for `b`; the component "
        "functions (9) are `\\Omega^d\\alpha`."),
    "componentwise_l2": (
        "In orthonormal reduced coordinates `\\|\\hat Y^d\\|_2 = \\|z_d\\|`; eliminating `b` "
        "(`P = I - \\mathbf 1\\mathbf 1^\\top/N`) and the coupling (`z = U_B\\theta`) leaves "
        "`(I + \\xi U_B^\\top V^\\top P V U_B)\\theta = \\xi U_B^\\top V^\\top P y`."),
    "componentwise_stp": (
        "Each graduated-non-convexity step is the weighted least-squares problem (41)-(43): "
        "with `b` eliminated, `H z = V^\\top P y` on the coupling subspace, "
        "`H = \\operatorname{blockdiag}(V_d^\\top\\operatorname{diag}(\\nu_d^2)V_d) + "
        "V^\\top P V`, one Cholesky factor per step."),
    "componentwise_eta": (
        "Stationarity of (31) gives `w_d = \\eta_d\\sum_k\\alpha^\\eta_k\\varphi_d(x_k^d)`, hence "
        "the LS-SVM system (34) with the kernel `\\Omega^\\eta = \\sum_d\\eta_d\\Omega^d`."),
    "l2svm_dual": (
        "On the active set `E` the constraints `\\alpha_E > 0` are inactive and "
        "`\\alpha_{\\bar E} = 0`: Problem 2 reduces to the LS-SVM classifier system (7) with "
        "`\\gamma = 2/\\lambda` (Proposition 2), solved by one Cholesky factor of "
        "`H_{EE}(\\lambda)` and the Schur complement (8)-(11); `E` is found by the active-set "
        "(primal Newton) iteration."),
    "pareto_krr_sum": (
        "Setting the gradient of (29) to zero gives the linear system "
        "`(K^\\top K/n + 2\\nu M_+)\\alpha = K^\\top y/n + \\nu q`; with `E_c = \\alpha^\\top "
        "K\\alpha` this is kernel ridge regression (33) with `\\lambda = 2n\\nu`."),
    "auto_lssvm": (
        "Eliminating `b = \\operatorname{mean}(y - K\\alpha)` leaves the SPD system "
        "`(K_c^\\top K_c + \\mu G + \\nu R)\\alpha = K_c^\\top y` with `K_c = (I - \\mathbf 1"
        "\\mathbf 1^\\top/N)K`, solved by one Cholesky factor."),
    "regularized_lssvm": (
        "With the squared loss and quadratic terms `\\tfrac12\\alpha^\\top P_k\\alpha` the "
        "optimality conditions are linear; for the RKHS norm alone they reduce to the LS-SVM "
        "system (2) with `\\gamma = 1/w`, otherwise to one symmetric augmented system."),
}
for _src, _dst in (("lssvm", "weighted_lssvm"), ("lssvm", "lssvm_classifier"),
                   ("areg", "areg_classifier"), ("areg", "componentwise_areg"),
                   ("areg_fusion", "areg_classifier_fusion"),
                   ("areg_ensemble", "areg_classifier_ensemble"),
                   ("areg_fast_cv", "areg_classifier_fast_cv"),
                   ("componentwise_lssvm", "componentwise_lssvm_classifier"),
                   ("auto_lssvm", "auto_lssvm_classifier")):
    CLOSED_FORM.setdefault(_dst, CLOSED_FORM[_src])
CLOSED_FORM.setdefault("l2svm_primal", CLOSED_FORM["l2svm_dual"] + " The primal point follows "
                       "from `\\xi = (\\lambda/2)\\alpha` (1) and (2).")
CLOSED_FORM.setdefault("areg_cv", "The fused problem is least squares in `c` (one factorization "
                       "and one explicit `C_l` per fold); the final model is AReg (9) on all "
                       "points with that `c`.")
CLOSED_FORM.setdefault("areg_classifier_cv", CLOSED_FORM["areg_cv"])
CLOSED_FORM.setdefault("pareto_krr_alpha", "Both constraints are handled on the path of the "
                       "sum criterion (29), computed from one spectral decomposition: the "
                       "solution is its point at `\\nu = \\max(s/\\varepsilon, "
                       "\\nu_{s\\varepsilon})`, with `\\nu_{s\\varepsilon}` the weight at which "
                       "`E_c^+ = s\\varepsilon` (scalar root search); `h` and the multipliers "
                       "follow from the KKT conditions.")
CLOSED_FORM.setdefault("pareto_krr_alpha_eps", "When the bound is active the solution is the "
                       "point of the sum-criterion path (29) whose weight `\\nu` gives "
                       "`E_c^+(\\alpha) = \\varepsilon` (scalar root search on one spectral "
                       "decomposition); `\\nu` is the constraint's multiplier.")


def latex_of(formulation: Any) -> Mapping[str, str]:
    """The display equations of a formulation class or instance: ``reference.latex`` when set,
    else :data:`LATEX` by name (empty when neither has them)."""
    ref = getattr(formulation, "reference", None)
    own = getattr(ref, "latex", None)
    if own:
        return dict(own)
    return dict(LATEX.get(getattr(formulation, "name", ""), {}))


def closed_form_of(formulation: Any) -> str:
    """The closed form's derivation for a formulation (empty string when there is none)."""
    if not getattr(formulation, "has_closed_form", False):
        return ""
    return CLOSED_FORM.get(getattr(formulation, "name", ""), "")


_FRACTIONS = {("1", "2"): "½", ("1", "4"): "¼", ("1", "3"): "⅓"}


def to_unicode(latex: str) -> str:
    r"""A display equation as plain Unicode text for terminals (``lssvm-cvx formulations
    --show``).

    pylatexenc's LaTeX-to-text conversion after the rewrites it does not do: ``\tfrac12`` → ½,
    ``\tfrac{a}{bc}`` → ``a/(bc)``, ``\|x\|`` → ‖x‖, ``^{-1}`` → ⁻¹, ``^{ab}`` → ``^(ab)``,
    ``\tag{n}`` → ``(n)`` at the end, matrix rows → ``;``, ``cases`` rows → ``value if
    condition``, ``f''`` → f″, ``\ne`` → ≠.  A space written after a symbol macro (``\alpha
    \ge 0``), ``\quad`` and ``\text{s.t.}`` stay spaces: TeX's tokenizer (and pylatexenc's)
    drops the space after a control word, which glued ``αs.t.`` together.

    Parameters
    ----------
    latex : str
        One display equation (math mode content, no ``$``).

    Returns
    -------
    str
        The equation on one line, its tag (if any) at the end in parentheses.
    """
    import re

    from pylatexenc.latex2text import LatexNodes2Text

    group = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # {...} with one level of nested braces

    def atom(s: str) -> bool:
        return re.fullmatch(r"\d+|[A-Za-z]|\\[A-Za-z]+", s.strip()) is not None

    tag = re.search(r"\\tag\{([^}]*)\}", latex)
    text = re.sub(r"\\tag\{[^}]*\}", "", latex)

    def frac(m: re.Match) -> str:
        a, b = m.group(1) or m.group(3), m.group(2) or m.group(4)
        if (a, b) in _FRACTIONS:
            return _FRACTIONS[(a, b)]
        return "/".join(x.strip() if atom(x) else f"({x.strip()})" for x in (a, b))

    def sup(m: re.Match) -> str:
        body = m.group(1).strip()
        if body == "-1":
            return "⁻¹"
        return "^" + (body if atom(body) or body.startswith("(") else f"({body})")

    def cases(m: re.Match) -> str:
        return r"\{ " + m.group(1).replace("&", r" \text{if} ") + r" \}"

    text = re.sub(r"\\begin\{cases\}(.*?)\\end\{cases\}", cases, text, flags=re.S)
    text = re.sub(r"\\[td]?frac(\\[A-Za-z]+)(\w)", r"\1/\2", text)  # \tfrac\gamma2 -> γ/2
    text = re.sub(r"\\[td]?frac(?:" + group + group + r"|(\w)(\w))", frac, text)
    text = text.replace(r"\|", "‖").replace(r"\Big", "").replace(r"\big", "")
    text = re.sub(r"\^" + group, sup, text)
    text = text.replace("\\\\", "; ")  # matrix rows
    text = text.replace("''", "″")  # a second derivative, not a closing quote
    text = re.sub(r"\\ne(?![A-Za-z])", r"\\neq", text)
    text = re.sub(r"\\operatorname\{(\w+)\}", r" \1", text)
    text = re.sub(r"(\\text\{[^{}]*\})", r"{} \1{} ", text)
    text = re.sub(r"\\q?quad(?![A-Za-z])", "{}   ", text)
    text = text.replace(r"\;", "{} ").replace(r"\ ", "{} ")
    # keep a space written between a macro and an operator ("\Omega + I", "\alpha \quad"); a
    # space before a letter only ends the macro's name ("d\in S") and stays dropped
    text = re.sub(r"(\\[A-Za-z]+)(?=\s+(?:[-+=<>,;&|]|\\(?:[lg]eq?|neq?|in|to|text)\b))",
                  r"\1{}", text)
    out = LatexNodes2Text(math_mode="text").latex_to_text(text)
    out = re.sub(r"\s*([≤≥≠→])\s*", r" \1 ", out)
    out = re.sub(r"[ \t]+", " ", out).strip()
    out = re.sub(r"\(\s+", "(", re.sub(r"\s+([,;)])", r"\1", out))
    out = out.replace("^⊤", "ᵀ").replace("^2", "²")
    return f"{out}    ({tag.group(1)})" if tag else out


def unicode_of(formulation: Any) -> dict[str, str]:
    """:func:`latex_of` converted by :func:`to_unicode` (label -> text)."""
    return {k: to_unicode(v) for k, v in latex_of(formulation).items()}
