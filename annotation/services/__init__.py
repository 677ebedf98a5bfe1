"""Annotation writes, one module per subject. Each service loads, calls annotation.core, saves; checks that can
refuse raise `errors.AnnotationError` (with an HTTP status and the field it is about) before anything is changed.
"""
