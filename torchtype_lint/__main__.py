"""``python -m torchtype_lint``.

Python puts the working directory first on ``sys.path`` for ``-m``: in a checked-out pull
request, a ``libcst.py`` or ``json.py`` there would be imported by the linter itself. It is
removed before anything else is imported (the console script never adds it).
"""
import os
import sys

_here = os.getcwd()
sys.path[:] = [entry for entry in sys.path
               if entry not in ("", ".") and os.path.abspath(entry) != _here]

from torchtype_lint.cli.main import main  # noqa: E402 - only after sys.path is safe

sys.exit(main())
