"""Each system's layouts as frozen dataclasses with their native text syntax:
``triton``, ``iree``, ``cute``, ``rock``; one entry point :func:`parse_layout`."""
