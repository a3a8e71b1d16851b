"""The coords tests' shared fixture."""

from coords_support import seed_filter_chain  # noqa: F401  (fixture)
