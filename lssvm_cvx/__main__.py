"""``python -m lssvm_cvx``: the ``lssvm-cvx`` command."""

import sys

try:
    from .cli import command
except KeyboardInterrupt:  # pragma: no cover - Ctrl-C within the first moments of startup
    print("lssvm-cvx: interrupted", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(command())
