"""evalues."""
