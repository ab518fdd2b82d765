"""Results, result files and pictures."""
