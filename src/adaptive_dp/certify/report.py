"""The human side of a certificate: a Markdown report and a plot of the recorded against
the certified loss over the transcript's lines (matplotlib, imported lazily: the plot
extra)."""

from __future__ import annotations

from pathlib import Path

from adaptive_dp.certify.certificate import VERDICTS, Certificate, LineVerdict

__all__ = ["markdown", "plot"]


def _row(v: LineVerdict) -> str:
    notes = "; ".join(
        f"{f.field}: {f.verdict} (recorded {f.recorded}, certified {f.certified}"
        + (f", unused {f.unused:.6g}" if f.unused is not None else "") + ")"
        for f in v.findings if f.verdict != "agrees"
    )
    who = f" {v.child}" if v.child else ""
    rid = v.id or ""
    return f"| {v.line} | {rid}{who} | {v.verdict} | {v.decision or ''} | {notes} |"


def markdown(cert: Certificate, plot_file: str | None = None) -> str:
    """The report: what was certified, the summary, every line that does not simply
    agree, and the plot when one was drawn."""
    params = ", ".join(f"{k}={v}" for k, v in cert.parameters)
    counts = cert.counts
    lines = [
        f"# Certificate: {cert.books} `{cert.name}` ({params})",
        "",
        f"- transcript SHA-256: `{cert.sha256}`",
        f"- mode: {cert.mode}; neighbours: {cert.neighbours}; concurrent: "
        f"{'yes' if cert.concurrent else 'no'}",
        f"- spec: {', '.join(cert.spec)}; adaptive-dp {cert.version}; relative tolerance "
        f"{float(cert.tolerance):.3g}",
        f"- verdict: **{cert.verdict}** (exit {cert.exit_code}); "
        + ", ".join(f"{counts[v]} {v}" for v in reversed(VERDICTS) if counts[v]),
    ]
    if cert.unsafe_lines:
        lines.append(f"- unsafe lines: {', '.join(map(str, cert.unsafe_lines))}")
    unused = [v.unused for v in cert.verdicts if v.unused is not None]
    if unused:
        lines.append(f"- budget left unused on conservative lines: up to {max(unused):.6g}")
    notable = [v for v in cert.verdicts if v.verdict not in ("agrees", "replayed")]
    lines += ["", "| line | request | verdict | decision | findings |",
              "|---:|---|---|---|---|"]
    lines += [_row(v) for v in notable] or ["| | | every line agrees | | |"]
    if plot_file is not None:
        lines += ["", f"![recorded and certified loss per line]({plot_file})"]
    return "\n".join(lines) + "\n"


def plot(cert: Certificate, path: Path) -> None:
    """Recorded and certified loss (primary parameter) per line, unsafe lines marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from adaptive_dp.errors import AdaptiveDPError

        raise AdaptiveDPError("--plot needs matplotlib: install the plot extra "
                              "(pip install 'adaptive-dp[plot]')") from None
    xs = [v.line for v in cert.verdicts]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    nan = float("nan")
    ax.step(xs, [nan if v.certified is None else v.certified for v in cert.verdicts],
            where="post", label="certified")
    recorded = [(v.line, v.recorded) for v in cert.verdicts if v.recorded is not None]
    if recorded:
        ax.plot(*zip(*recorded, strict=True), "o", ms=3, label="recorded")
    bad = [(v.line, v.certified) for v in cert.verdicts if v.verdict == "unsafe"]
    if bad:
        ax.plot(*zip(*bad, strict=True), "x", color="red", ms=8, label="unsafe")
    ax.set_xlabel("transcript line")
    ax.set_ylabel("loss so far (primary parameter)")
    ax.set_title(f"{cert.books} {cert.name}: {cert.verdict}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
