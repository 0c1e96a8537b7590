"""odometers."""
