"""``python -m selector``: the command line lives build side, in :mod:`datatools.cli` (not shipped to the browser)."""

import sys

from datatools.cli import main

sys.exit(main())
