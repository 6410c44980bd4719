"""``python -m tropattn``: the same command line as ``tropattn``."""

import sys

from .cli import main

sys.exit(main())
