"""PLAN-Bench writes, one module per subject: who may judge, the judge and its verdict cache, the human queue, the
judge audit, importing items into a split.
"""
