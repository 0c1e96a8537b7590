"""``python -m adaptive_dp``: the ``adaptive-dp`` command."""

import sys

from adaptive_dp.cli import main

sys.exit(main())
