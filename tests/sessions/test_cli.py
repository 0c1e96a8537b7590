"""``adaptive-dp session``: a round trip (create, spend on standard input and as an
argument, status --json, export) and one-line errors with exit 2 that charge nothing."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from adaptive_dp.cli import main
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.transcript import read_transcript


def spend_stdin(monkeypatch: pytest.MonkeyPatch, db: Path, text: str) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    return main(["session", "spend", str(db)])


def test_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    assert main(["session", "create", str(db), "--rule", "basic", "--epsilon", "1",
                 "--source", "round trip"]) == 0
    capsys.readouterr()
    lines = "".join(json.dumps({"kind": "pure", "epsilon": e, "id": f"r{i}"}) + "\n"
                    for i, e in enumerate(["0.5", "0.25", "0.5", "0.25"]))
    assert spend_stdin(monkeypatch, db, lines + "\n") == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["decision"] for a in answers] == ["continue", "continue", "halt", "continue"]
    assert answers[-1]["spent"] == {"epsilon": 1.0, "delta": 0.0}
    assert [a["index"] for a in answers] == [1, 2, 3, 4]
    assert main(["session", "spend", str(db), "--id", "r1",
                 '{"kind": "pure", "epsilon": "0.25"}']) == 0
    retry = json.loads(capsys.readouterr().out)
    assert retry == {**answers[1], "replayed": True}
    assert main(["session", "status", str(db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["count"], status["admitted"], status["halted"]) == (4, 3, False)
    assert status["transcript"]["source"] == "round trip"
    out = tmp_path / "s.jsonl"
    assert main(["session", "export", str(db), "--out", str(out)]) == 0
    assert status["head"] in capsys.readouterr().err
    transcript = read_transcript(out.read_text().splitlines())
    assert transcript.header.name == "basic" and transcript.header.source == "round trip"
    assert [e.decision for e in transcript.entries] == [a["decision"] for a in answers]
    assert [e.id for e in transcript.entries] == ["r0", "r1", "r2", "r3"]
    assert [e.spend for e in transcript.entries] == [
        PureDP(Fraction(e)) for e in ("1/2", "1/4", "1/2", "1/4")]


def test_status_text_and_odometer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "o.db"
    assert main(["session", "create", str(db), "--odometer", "zcdp-sum"]) == 0
    assert main(["session", "spend", str(db), '{"kind": "zcdp", "rho": "0.5"}']) == 0
    capsys.readouterr()
    assert main(["session", "status", str(db)]) == 0
    text = capsys.readouterr().out
    assert "requests 1, admitted 1" in text and "reading rho=0.5" in text


def errors(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(("argv", "stdin", "message"), [
    (["spend", "{db}", '{"kind": "pure"'], "", "line 1, field '<json>'"),
    (["spend", "{db}", '{"kind": "bogus"}'], "", "unknown kind 'bogus'"),
    (["spend", "{db}", '{"kind": "gdp", "mu": "1"}'], "", "kind 'gdp' is not supported"),
    (["spend", "{db}"], '{"kind": "pure", "epsilon": "0.1"}\n[1]\n',
     "line 2, field '<json>'"),
    (["spend", "{db}", "--id", "x"], "", "--id goes with a JSON argument"),
    (["spend", "{missing}", '{"kind": "pure", "epsilon": "0.1"}'], "", "no such session"),
    (["status", "{missing}"], "", "no such session store"),
    (["create", "{db}", "--rule", "basic", "--epsilon", "1"], "", "exists"),
    (["create", "{new}", "--rule", "w23", "--epsilon", "1"], "", "needs --delta"),
    (["create", "{new}", "--rule", "basic", "--epsilon", "x"], "", "--epsilon x"),
    (["create", "{new}", "--rule", "basic", "--epsilon", "1", "--mu", "1"], "",
     "--mu is not a parameter of rule 'basic'"),
])
def test_errors_are_one_line_exit_2_and_charge_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], stdin: str, message: str) -> None:
    db, new = tmp_path / "s.db", tmp_path / "new.db"
    assert main(["session", "create", str(db), "--rule", "basic", "--epsilon", "1"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    capsys.readouterr()
    paths = {"db": str(db), "new": str(new), "missing": str(tmp_path / "missing.db")}
    assert main(["session", *(paths.get(a.strip("{}"), a) for a in argv)]) == 2
    assert message in errors(capsys)
    assert not new.exists() and not (tmp_path / "missing.db").exists()
    assert main(["session", "status", str(db), "--json"]) == 0
    charged = 1 if stdin else 0  # the good line before a bad one stays answered
    assert json.loads(capsys.readouterr().out)["count"] == charged


def test_integrity_failure_is_one_line(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    db.write_text("not a database, just text\n" * 100)
    assert main(["session", "status", str(db)]) == 2
    assert "s.db" in errors(capsys)
