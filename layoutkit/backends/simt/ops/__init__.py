"""What each op does in the simulator: one module per dialect, each registering its handlers
by op class in :mod:`layoutkit.backends.simt.registry` (the registry imports them all)."""
