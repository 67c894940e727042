"""Reference-value generators for scripts/gen_stats_vectors.py, one module per area."""
