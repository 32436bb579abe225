"""The committed claims audit (``benchmarks/results/audit``) is what
``python -m lssvm_cvx.benchmarks.audit`` computes from the committed results files now: it cannot
go stale or be edited by hand (issue 32)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lssvm_cvx.benchmarks import audit

RESULTS = Path(audit.__file__).resolve().parent / "results"


def test_the_committed_audit_is_recomputed_from_the_results():
    committed = json.loads((RESULTS / "audit" / "claims_audit.json").read_text(encoding="utf-8"))
    now = json.loads(json.dumps(audit.audit(RESULTS), default=str))
    assert committed == now, "regenerate: python -m lssvm_cvx.benchmarks.audit"
    md = (RESULTS / "audit" / "claims_audit.md").read_text(encoding="utf-8")
    assert md == audit.to_markdown(now)


def test_the_audit_counts_what_the_files_say(tmp_path):
    """Two results files copied, one claim flipped: the counts follow."""
    for name in ("areg_fig2", "auto_sinc"):
        shutil.copy(RESULTS / f"{name}.json", tmp_path)
        shutil.copy(RESULTS / f"{name}.md", tmp_path)
    base = audit.audit(tmp_path)
    assert base["files"] == 2
    doc = json.loads((tmp_path / "auto_sinc.json").read_text(encoding="utf-8"))
    claim = next(k for k, c in doc["checks"].items()
                 if c["ok"] and c["relation"] in ("<=", "<", ">=", ">"))
    c = doc["checks"][claim]            # a value that misses its target (read_results checks)
    c["value"] = (abs(c["target"]) * 10 + 1) * (1 if c["relation"].startswith("<") else -1)
    c["ok"] = False
    (tmp_path / "auto_sinc.json").write_text(json.dumps(doc), encoding="utf-8")
    after = audit.audit(tmp_path)
    assert after["met"] == base["met"] - 1 and after["claims"] == base["claims"]
    assert any(c["claim"] == claim for p in after["papers"] for c in p["unmet"])
