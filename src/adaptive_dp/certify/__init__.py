"""Certify budget transcripts (docs/design.md, certify): replay what a system was asked,
decided and reported through the certified rule, and give every line a verdict."""
