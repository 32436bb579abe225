"""``python -m lssvm_cvx``: the ``lssvm-cvx`` command."""

import sys

from .cli import main

sys.exit(main())
