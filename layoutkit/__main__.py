import sys

from layoutkit.cli import main

sys.exit(main())
