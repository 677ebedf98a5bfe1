"""Device authoring's writes, one module per subject: projects and drafts (drafts.py), photos and proposed boxes
(photos.py), review rounds, publishing and export (review.py)."""
