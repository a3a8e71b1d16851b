"""Makes the CuTe test helpers (cute_reference.py) importable under importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
