"""``python -m golf`` is the ``golf`` command."""

import sys

from golf.cli import main

sys.exit(main())
