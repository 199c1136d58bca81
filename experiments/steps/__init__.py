"""The steps of a sweep run: anonymizers and attacks, each declaring the metrics it produces."""
