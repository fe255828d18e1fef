"""``python -m app``: the same as the ``attitude-sim`` command."""

import sys

from app.cli import main

sys.exit(main())
