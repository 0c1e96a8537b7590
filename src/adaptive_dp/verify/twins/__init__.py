"""verify/twins."""
