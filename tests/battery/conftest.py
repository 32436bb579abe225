"""The bad-input battery's bookkeeping: every case records its outcome here, and the session
prints the counts (from the cases actually run) at the end of the terminal report."""

from __future__ import annotations

import collections

import pytest

#: case id -> outcome ("clear error", "documented acceptance", "unclear error", "crash",
#: "silent wrong answer")
OUTCOMES: dict[str, str] = {}
GOOD = ("clear error", "documented acceptance")
KNOWN = "known defect"  # a bad outcome listed in test_battery.KNOWN_DEFECTS (strict xfail)


@pytest.fixture
def record():
    """``record(case_id, outcome)``."""
    def rec(case_id: str, outcome: str) -> None:
        OUTCOMES[case_id] = outcome

    return rec


def summary_lines() -> list[str]:
    counts = collections.Counter(o.split(": ")[0] for o in OUTCOMES.values())
    bad = sum(n for k, n in counts.items() if k not in GOOD and k != KNOWN)
    by_entry = collections.Counter(cid.split("::")[0] for cid in OUTCOMES)
    lines = [f"bad-input battery: {len(OUTCOMES)} cases run: {counts['clear error']} clear errors "
             f"(project exception naming the argument), {counts['documented acceptance']} "
             f"documented acceptances, {bad} crashes, unclear errors or silent wrong answers, "
             f"{counts[KNOWN]} known defects (strict xfail, listed below with their owner)"]
    lines.append("  by entry point: " + ", ".join(f"{k} {n}" for k, n in sorted(by_entry.items())))
    for cid, outcome in sorted(OUTCOMES.items()):
        if outcome not in GOOD:
            lines.append(f"  {outcome}: {cid}")
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if OUTCOMES:
        terminalreporter.section("bad-input battery")
        for line in summary_lines():
            terminalreporter.write_line(line)
