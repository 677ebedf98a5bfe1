"""Pure annotation code: mask edits, segmentation backends, label linting, agreement. Imports no Django."""
