"""Long runs show a progress bar on a terminal with the base install (tqdm is a runtime
dependency), and stay silent when standard error is not a terminal or the JSON goes to
standard output."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

ONE_CLAIM = ["--only", "EXT-CKS20"]


def _stderr(args: list[str], *, terminal: bool) -> str:
    command = [sys.executable, "-m", "adaptive_dp", "verify", *ONE_CLAIM, *args]
    if not terminal:
        return subprocess.run(command, capture_output=True, text=True, timeout=120).stderr
    leader, follower = pty.openpty()
    # a terminal of 24 x 100 (a fresh pseudo-terminal has size 0 x 0: no room for a bar)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=follower,
                              timeout=120).returncode
        assert code == 0
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)


def test_a_bar_on_a_terminal() -> None:
    assert "claim" in _stderr([], terminal=True)


def test_silent_when_not_a_terminal_or_json_on_stdout() -> None:
    assert _stderr([], terminal=False) == ""
    assert "claim" not in _stderr(["--json"], terminal=True)
