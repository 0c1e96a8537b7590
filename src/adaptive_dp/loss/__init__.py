"""loss."""
