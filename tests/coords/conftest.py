"""Makes the coords test helpers (coords_support.py) importable under importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from coords_support import seed_filter_chain  # noqa: E402,F401  (fixture)
