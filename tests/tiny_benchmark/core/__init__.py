"""Tiny-Bench's pure core: each answer is a word; a sample scores 1 when it equals the sample's answer."""
