"""Certify budget transcripts (docs/design.md, certify): replay what a system was asked,
decided and reported through the certified rule, and give every line a verdict
(``agrees``, ``conservative``, ``undecided``, ``unsafe``; ``replayed`` where nothing was
recorded) in an immutable, deterministic :class:`Certificate`."""

from adaptive_dp.certify.certificate import VERDICTS, Certificate, Finding, LineVerdict
from adaptive_dp.certify.engine import (
    TOLERANCE,
    certify_text,
    certify_transcript,
    check_certificate,
)

__all__ = [
    "TOLERANCE",
    "VERDICTS",
    "Certificate",
    "Finding",
    "LineVerdict",
    "certify_text",
    "certify_transcript",
    "check_certificate",
]
