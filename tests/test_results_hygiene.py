"""Results files a reviewer can trust (issue 17, item 6): every committed results file under
``benchmarks/results/`` (full and quick) records the commit that produced it and that the tree
was clean, opens with its claims table, and agrees with its JSON twin.

Files written before the provenance header existed are listed in :data:`PENDING` with the
reason; the list is a ratchet — a pending file that passes must leave the list, and a file not
in it must pass — so regenerating a benchmark (``lssvm-cvx bench --only NAME``) is the only way
to shrink it.  Each property is also checked on small synthetic results directories, so that the
checker itself can fail.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
COMMIT = re.compile(r"^- commit: ([0-9a-f]{40}) \(tree (clean|dirty[^)]*)\)$", re.M)
CLAIMS = "## Claims checked in this run"

#: results files not regenerated since the provenance header was added (their header has no
#: commit line); regenerate with ``lssvm-cvx bench --only NAME`` (full) or ``--quick``
PENDING: dict[str, str] = {
}


def _in_git() -> bool:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"],
                              capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _commit_exists(sha: str) -> bool:
    return subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{sha}^{{commit}}"],
                          capture_output=True, timeout=10).returncode == 0


def _md_claims(text: str) -> list[str]:
    """Claim names of the md claims table (first column of its rows)."""
    sec = text.split(CLAIMS, 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in sec.splitlines() if ln.startswith("| ") and not ln.startswith("| claim |")]
    return [r.split(" | ")[0][2:] for r in rows]


def problems(md: Path, *, check_git: bool = True) -> list[str]:
    """Everything wrong with one results file (``<name>.md`` and its ``<name>.json``)."""
    text = md.read_text(encoding="utf-8")
    out = []
    m = COMMIT.search(text)
    if not m:
        out.append("no '- commit: <sha> (tree clean)' header line")
    else:
        if m.group(2) != "clean":
            out.append(f"made from a dirty tree ({m.group(2)})")
        if check_git and not _commit_exists(m.group(1)):
            out.append(f"commit {m.group(1)[:10]} is not in this repository's history")
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    if not headings or headings[0] != CLAIMS:
        out.append("the claims table is not the first section")
    js = md.with_suffix(".json")
    if not js.exists():
        out.append("no JSON twin")
        return out
    data = json.loads(js.read_text(encoding="utf-8"))
    meta = data.get("meta") or {}
    if m and meta.get("commit") != m.group(1):
        out.append(f"JSON meta.commit {meta.get('commit')!r} differs from the md header")
    if m and meta.get("tree_clean") is not True and m.group(2) == "clean":
        out.append("JSON meta.tree_clean is not true")
    for claim, c in (data.get("checks") or {}).items():
        if not {"value", "target", "relation", "ok"} <= set(c):
            out.append(f"claim {claim!r} lacks measured/target/met")
    if CLAIMS in text and sorted(_md_claims(text)) != sorted(
            s.replace("|", "\\|") for s in (data.get("checks") or {})):
        out.append("the md claims table and the JSON checks differ")
    mode = "quick" if md.parent.name == "quick" else "full"
    if data.get("mode") != mode:
        out.append(f"JSON mode {data.get('mode')!r} in the {mode} results folder")
    return out


def _files() -> list[Path]:
    return sorted(RESULTS.glob("*.md")) + sorted((RESULTS / "quick").glob("*.md"))


def test_every_results_file_is_trustworthy_or_pending():
    git = _in_git()
    bad, stale = {}, []
    for md in _files():
        key = str(md.relative_to(RESULTS))
        found = problems(md, check_git=git)
        if key in PENDING:
            if not found:
                stale.append(key)
        elif found:
            bad[key] = found
    assert not bad, "results files that fail the hygiene checks:\n" + "\n".join(
        f"  {k}: {'; '.join(v)}" for k, v in bad.items())
    assert not stale, f"regenerated, remove from PENDING: {stale}"
    missing = [k for k in PENDING if not (RESULTS / k).exists()]
    assert not missing, f"PENDING names files that do not exist: {missing}"


# ------------------------------------------------------------------ the checker can fail
SHA = "0" * 40


def _write(tmp: Path, header: str, sections: str, *, commit=SHA, clean=True, checks=None,
           mode="full") -> Path:
    md = tmp / "x.md"
    md.write_text(f"# title\n\n- command: `x`\n{header}- date: d\n\n{sections}", encoding="utf-8")
    checks = {"a claim": {"value": 1.0, "target": 2.0, "relation": "<=", "unit": "", "ok": True}} \
        if checks is None else checks
    md.with_suffix(".json").write_text(json.dumps(
        {"mode": mode, "checks": checks, "meta": {"commit": commit, "tree_clean": clean}}))
    return md


GOOD_CLAIMS = "## Claims checked in this run\n\n| claim | measured | target | met |\n|---|---|---|---|\n" \
              "| a claim | 1 | <= 2 | yes |\n\n## Table\n\n| a |\n|---|\n| 1 |\n"


def test_checker_accepts_a_good_file(tmp_path):
    md = _write(tmp_path, f"- commit: {SHA} (tree clean)\n", GOOD_CLAIMS)
    assert problems(md, check_git=False) == []


@pytest.mark.parametrize("header,sections,kw,expect", [
    ("", GOOD_CLAIMS, {}, "no '- commit"),
    (f"- commit: {SHA} (tree dirty: uncommitted changes, sources hash abc)\n", GOOD_CLAIMS,
     {"clean": False}, "dirty tree"),
    (f"- commit: {SHA} (tree clean)\n", "## Table\n\n| a |\n|---|\n| 1 |\n\n" + GOOD_CLAIMS, {},
     "not the first section"),
    (f"- commit: {SHA} (tree clean)\n", GOOD_CLAIMS, {"commit": "1" * 40}, "differs from the md"),
    (f"- commit: {SHA} (tree clean)\n", GOOD_CLAIMS,
     {"checks": {"another claim": {"value": 1.0, "target": 2.0, "relation": "<=", "ok": True}}},
     "claims table and the JSON checks differ"),
    (f"- commit: {SHA} (tree clean)\n", GOOD_CLAIMS,
     {"checks": {"a claim": {"value": 1.0}}}, "lacks measured/target/met"),
    (f"- commit: {SHA} (tree clean)\n", GOOD_CLAIMS, {"mode": "quick"}, "JSON mode"),
])
def test_checker_catches_each_defect(tmp_path, header, sections, kw, expect):
    md = _write(tmp_path, header, sections, **kw)
    assert any(expect in p for p in problems(md, check_git=False)), problems(md, check_git=False)


def test_checker_catches_an_unknown_commit(tmp_path):
    if not _in_git():
        pytest.skip("not a git checkout: commits cannot be looked up")
    md = _write(tmp_path, f"- commit: {'f' * 40} (tree clean)\n", GOOD_CLAIMS, commit="f" * 40)
    assert any("not in this repository" in p for p in problems(md))


# ------------------------------------------------------------------ the committed sweep
SWEEP = RESULTS / "sweep"
#: the code a sweep measures: when any of it changed after the sweep's commit, the committed
#: sweep is stale (regenerate: ``lssvm-cvx bench --only harness_verdicts``)
# (``harness/files.py`` writes files and reads the commit and the machine for the header: it
# takes no part in a verdict or a timed call, so a change to it does not repeat the runs)
MEASURED = ("lssvm_cvx/harness", "lssvm_cvx/solvers.py", "lssvm_cvx/certificates.py",
            "lssvm_cvx/formulations", "lssvm_cvx/terms", "lssvm_cvx/losses.py",
            "lssvm_cvx/linalg", ":(exclude)lssvm_cvx/harness/sweep_report.py",
            ":(exclude)lssvm_cvx/harness/sweep_files.py", ":(exclude)lssvm_cvx/harness/files.py")
#: the code that derives the report (summary, profiles) from the rows: a change to it needs the
#: report rewritten (``sweep_files.rewrite_report``), not the runs repeated
REPORT = ("lssvm_cvx/harness/sweep_report.py", "lssvm_cvx/harness/sweep_files.py")


def sweep_problems(folder: Path, *, check_git: bool = True) -> list[str]:
    """Everything wrong with a committed sweep folder: no manifest, a run from a dirty tree,
    or code it measures changed since the commit of its last run."""
    js = folder / "sweep.json"
    if not js.exists():
        return [f"{js.name} missing: the sweep predates the manifest (regenerate it)"]
    runs = json.loads(js.read_text(encoding="utf-8"))["manifest"]["runs"]
    if not runs:
        return ["the manifest lists no run"]
    out = []
    for run in runs:
        commit = str(run.get("commit"))
        if not re.fullmatch(r"[0-9a-f]{40}", commit):
            out.append(f"run {run.get('run')} was made at {commit!r}, not a clean commit")
    last = str(runs[-1].get("commit"))
    if check_git and re.fullmatch(r"[0-9a-f]{40}", last):
        if not _commit_exists(last):
            out.append(f"commit {last[:10]} is not in this repository's history")
        else:
            changed = subprocess.run(["git", "-C", str(ROOT), "diff", "--name-only", last, "HEAD",
                                      "--", *MEASURED], capture_output=True, text=True,
                                     timeout=30).stdout.split()
            summary = (folder / "summary.md").read_text(encoding="utf-8") \
                if (folder / "summary.md").exists() else ""
            m = re.search(r"report rewritten from these rows at commit ([0-9a-f]{40})", summary)
            since = m.group(1) if m else last
            stale_report = subprocess.run(["git", "-C", str(ROOT), "diff", "--name-only", since,
                                           "HEAD", "--", *REPORT], capture_output=True,
                                          text=True, timeout=30).stdout.split()
            if stale_report:
                out.append(f"its report is older than the report code ({', '.join(stale_report)} "
                           f"changed since {since[:10]}); rewrite it with "
                           "lssvm_cvx.harness.sweep_files.rewrite_report")
            if changed:
                out.append(f"older than the code it measures: {len(changed)} file(s) changed "
                           f"since {last[:10]} ({', '.join(changed[:5])}"
                           + (", ..." if len(changed) > 5 else "") + "); regenerate with "
                           "`lssvm-cvx bench --only harness_verdicts`")
    return out


def test_the_committed_sweep_is_not_older_than_the_code_it_measures():
    git = _in_git()
    if git and not (SWEEP / "sweep.json").exists():
        pytest.fail("benchmarks/results/sweep has no sweep.json: " + "; ".join(
            sweep_problems(SWEEP, check_git=False)))
    found = sweep_problems(SWEEP, check_git=git)
    if git and any("not in this repository" in p for p in found):
        pytest.skip("a shallow clone: the sweep's commit cannot be looked up")
    assert not found, "; ".join(found)


def test_the_sweep_checker_can_fail(tmp_path):
    assert "missing" in sweep_problems(tmp_path, check_git=False)[0]
    (tmp_path / "sweep.json").write_text(json.dumps({"manifest": {"runs": [
        {"run": 0, "commit": "abc+dirty.123"}]}, "rows": []}))
    assert "not a clean commit" in sweep_problems(tmp_path, check_git=False)[0]
    if _in_git():
        first = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--max-parents=0", "HEAD"],
                               capture_output=True, text=True).stdout.split()[0]
        (tmp_path / "sweep.json").write_text(json.dumps({"manifest": {"runs": [
            {"run": 0, "commit": first}]}, "rows": []}))
        assert any("older than the code" in p for p in sweep_problems(tmp_path))


# ------------------------------------------------------------------- stated counts (issue 32)
#: "N of the paper's M <unit>" in a results file's titles, captions, notes or table cells
STATED = re.compile(r"(\d+) of the paper['’]s (\d+) (realisations|repetitions|seeds|"
                    r"train/test splits|splits)")
#: the column-name stem that counts each unit
STEMS = {"realisations": "realisation", "repetitions": "repetition", "seeds": "seed",
         "train/test splits": "split", "splits": "split"}


def _counts(row: dict, stem: str) -> dict[str, float]:
    return {k: v for k, v in row.items() if stem in k.lower() and isinstance(v, (int, float))
            and not isinstance(v, bool)}


def stated_count_problems(doc: dict) -> list[str]:
    """Where a results JSON states "N of the paper's M <unit>" and its data say otherwise: in a
    table row, every numeric column of that row named for the unit (``splits``,
    ``realisations (path)``) must equal N (and one must exist); in a title, caption or the notes,
    some row of the run's tables (not the paper's) must count N.  The counts in the data are
    computed from the rows the run produced, the stated N from the loop that ran them."""
    problems = []
    tables = doc.get("tables", [])
    for t in tables:
        for row in t.get("rows", []):
            for cell in row.values():
                for m in STATED.finditer(cell if isinstance(cell, str) else ""):
                    n, stem = int(m.group(1)), STEMS[m.group(3)]
                    cols = _counts(row, stem)
                    if not cols:
                        problems.append(f"{t['name']}: {m.group(0)!r} but no {stem!r} count in its row")
                    problems += [f"{t['name']}: {m.group(0)!r} but {k!r} = {v:g}"
                                 for k, v in cols.items() if v != n]
    texts = [doc.get("title", ""), doc.get("notes", "")] + \
        [f"{t.get('name', '')} {t.get('caption', '')}" for t in tables]
    for text in texts:
        for m in STATED.finditer(text or ""):
            n, stem = int(m.group(1)), STEMS[m.group(3)]
            seen = {v for t in tables for row in t.get("rows", []) for v in _counts(row, stem).values()}
            if n not in seen:
                problems.append(f"{m.group(0)!r} stated but no row counts {n} ({stem}: {sorted(seen)})")
    return problems


def test_stated_realisation_and_split_counts_match_the_data():
    files = sorted(RESULTS.glob("*.json")) + sorted((RESULTS / "quick").glob("*.json"))
    checked, bad = 0, {}
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or "tables" not in doc:
            continue
        checked += bool(STATED.search(json.dumps(doc, ensure_ascii=False)))
        problems = stated_count_problems(doc)
        if problems:
            bad[f.name] = problems
    assert checked >= 5          # the files that state a count are found
    assert not bad, bad


def test_the_stated_count_check_can_fail():
    row = {"data set": "HOUSING (31 of the paper's 50 train/test splits)", "splits": 31}
    good = {"title": "T (31 of the paper's 50 train/test splits per data set)",
            "tables": [{"name": "Table V", "rows": [row]}]}
    assert stated_count_problems(good) == []
    off = {"title": good["title"], "tables": [{"name": "Table V", "rows": [{**row, "splits": 26}]}]}
    assert len(stated_count_problems(off)) == 2          # the row and the title
    none = {"tables": [{"name": "Table 5", "rows": [{"criterion": "default (5 of the paper's 30 "
                                                     "realisations; gradient: 2)"}]}]}
    assert "no 'realisation' count" in stated_count_problems(none)[0]
    paper_only = {"tables": [{"name": "Table 5", "rows": [{"criterion": "x", "realisations": 5}],
                              "paper": [{"criterion": "default (5 of the paper's 30 realisations)",
                                         "realisations": 30}]}]}
    assert stated_count_problems(paper_only) == []          # the paper's rows are not ours
