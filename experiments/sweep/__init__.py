"""A sweep: its file (schema), its runs (grid), running them (runner) and the results table."""
