"""Memory-access analysis: bank conflicts, coalescing, vector width, duplication, register counts."""
