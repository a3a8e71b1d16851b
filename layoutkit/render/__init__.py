"""Views: text views compatible with triton-tensor-layout, pictures (matplotlib)."""
