"""``python -m app.cli``: the same as the ``attitude-sim`` command."""

import sys

from app.cli.entry import main

sys.exit(main())
