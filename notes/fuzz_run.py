"""The loop of the notes' fuzz scripts (``fuzz_more_helpers.py``, ``fuzz_selection.py``,
``fuzz_core.py``): each valid call once, then each of its bad variants (the ``_mutants`` of
``tests/test_helper_inputs.py``), printing every bad call that was not refused with the
package's exception, and the counts."""
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_helper_inputs import _mutants  # noqa: E402

from lssvm_cvx.exceptions import LssvmCvxError  # noqa: E402


def run(calls):
    """``calls``: name -> (function, valid positional arguments); returns the counts."""
    tot = {"valid_fail": 0, "refused": 0, "crash": 0, "answer": 0}
    for name, (fn, args) in calls.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(*args)
            except Exception as e:
                print("VALID CALL FAILS", name, type(e).__name__, e)
                tot["valid_fail"] += 1
                continue
            for label, i, bad in _mutants(args):
                aa = list(args)
                aa[i] = bad
                try:
                    r = fn(*aa)
                    tot["answer"] += 1
                    print("ANSWER ", name, "|", label, "|", type(r).__name__)
                except LssvmCvxError:
                    tot["refused"] += 1
                except Exception as e:
                    tot["crash"] += 1
                    print("CRASH  ", name, "|", label, "|", type(e).__name__, str(e)[:90])
    print(tot)
    return tot
