"""EPIC-Bench scoring core: pure Python (numpy, scipy, pycocotools), no Django.

A drop-in for the public EPIC-Bench toolkit's std_format scorer (spec: docs/formats/epic.md), with the
deliberate deviations B1, B2, B3 and B5 (docs/epic-scoring.md) and a `compat` mode for B1/B5.
"""
