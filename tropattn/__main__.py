"""``python -m tropattn``: the same command line as ``tropattn``."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: nothing has started, exit as interrupted
    print("tropattn: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
