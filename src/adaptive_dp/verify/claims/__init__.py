"""verify/claims."""
