"""annotation app."""
