"""``adaptive-dp certify TRANSCRIPT``: judge a budget transcript (docs/design.md,
transcripts) line by line against the certified rule it names; ``--check`` re-verifies a
certificate. Exit 0 when no line is unsafe, 1 when one is (or a certificate does not
re-verify), 2 on bad input."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

from adaptive_dp.certify import TOLERANCE, Certificate, certify_text, check_certificate
from adaptive_dp.certify.report import markdown, plot
from adaptive_dp.cli import UsageError
from adaptive_dp.cli._replay import output
from adaptive_dp.numerics import exact_positive

NAME = "certify"
HELP = "certify a budget transcript: a verdict per recorded decision and reported value"

__all__ = ["HELP", "NAME", "configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcript", help="the transcript (JSON lines; - for standard input)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="write the certificate (deterministic JSON) to standard output "
                        "or FILE")
    parser.add_argument("--report", metavar="FILE.md", help="write a Markdown report")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="plot recorded vs certified loss per line (the plot extra)")
    parser.add_argument("--tolerance", default=None,
                        help="relative tolerance for reported numbers (float rounding; "
                        "default 2^-40)")
    parser.add_argument("--check", metavar="CERTIFICATE",
                        help="re-verify CERTIFICATE against the transcript instead: exit 0 "
                        "when certifying the transcript gives exactly it, else 1")


def _read(path: str, what: str) -> str:
    """The file's text, byte for byte (no newline translation: the certificate carries
    the SHA-256 of these bytes)."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        return data.decode("utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {what} {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what} {path} is not UTF-8 text") from None


def _summary(cert: Certificate) -> str:
    out = []
    for v in cert.verdicts:
        if v.verdict in ("agrees", "replayed"):
            continue
        detail = "; ".join(f"{f.field} recorded {f.recorded}, certified {f.certified}"
                           + (f", unused {f.unused:.6g}" if f.unused is not None else "")
                           for f in v.findings if f.verdict != "agrees")
        out.append(f"line {v.line}: {v.verdict}: {detail}")
    counts = ", ".join(f"{n} {k}" for k, n in cert.counts.items() if n)
    n = len(cert.verdicts)
    out.append(f"{cert.books} {cert.name} ({', '.join(cert.spec)}): {n} "
               f"line{'' if n == 1 else 's'}: {counts or 'none'}; verdict {cert.verdict}")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    text = _read(args.transcript, "transcript")
    if args.check is not None:
        differences = check_certificate(_read(args.check, "certificate"), text)
        for line in differences:
            sys.stdout.write(f"differs: {line}\n")
        sys.stdout.write("certificate re-verified\n" if not differences else
                         "certificate does NOT re-verify\n")
        return 1 if differences else 0
    tolerance = (TOLERANCE if args.tolerance is None
                 else Fraction(exact_positive(args.tolerance, "--tolerance")))
    cert = certify_text(text, tolerance)
    if args.json is not None:
        with output(args.json) as out:
            out.write(cert.to_json())
    if args.json != "-":
        sys.stdout.write(_summary(cert))
    if args.plot is not None:
        plot(cert, Path(args.plot))
    if args.report is not None:
        try:
            Path(args.report).write_text(markdown(cert, args.plot), encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write --report {args.report}: {error.strerror}") from None
    return cert.exit_code
