"""interactive."""
