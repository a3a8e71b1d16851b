"""What each op becomes in CUDA C++: one module per dialect, each registering its emitters by
op class in :mod:`layoutkit.backends.cuda.registry` (the registry imports them all)."""
