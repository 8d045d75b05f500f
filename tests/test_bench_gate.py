"""bench/gate.py scores a blind channel corpus when it is there, says so when it is not, and a
blind run (run once) survives a corpus entry it cannot place and a path that raises: each is
named in the report, an unknown channel counted out, a raising path counted against the gate.

The corpus here is a tiny one written to a temporary folder; the real channels go through
their real paths (a scratch home, a loopback chat server).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_gate", ROOT / "bench" / "gate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_gate"] = module
    spec.loader.exec_module(module)
    return module


_KEY = "gh" + "p_" + "Q3ZLN7V2RKD4WX6Mq8v0Tz5Lw1Yc9Hb2Nf4J"
_CORPUS: dict[str, Any] = {
    "secrets": [{"id": "s-github", "secret": _KEY}],
    "near_misses": [{"id": "n-sha", "text": "commit 3f2a9c1d"}],
    "placements": [
        {"id": "p-doc", "channel": "document_text", "template": "notes: {secret} (rotate)"},
        {"id": "p-pigeon", "channel": "carrier_pigeon", "template": "{secret}"},
        {"id": "p-title", "channel": "title", "template": "Broken {secret}"},
    ],
}


def test_a_blind_corpus_is_scored_when_it_is_there_and_named_when_not(
    gate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    blind = tmp_path / "channels_holdout16.json"
    monkeypatch.setattr(gate, "CHANNELS_HOLDOUT", blind)
    assert gate.blind_channels() == []
    assert "channels_holdout16.json is not there" in capsys.readouterr().out
    blind.write_text(json.dumps(_CORPUS), encoding="utf-8")
    [(label, path)] = gate.blind_channels()
    assert path == blind and "channels_holdout16.json" in label and "blind" in label


def test_an_unknown_channel_is_counted_out_and_a_raising_path_counted_against_the_gate(
    gate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "blind.json"
    path.write_text(json.dumps(_CORPUS), encoding="utf-8")

    def broken_title(self: object, title: str) -> str:
        raise RuntimeError("the title path failed\nand its second line")

    monkeypatch.setattr(gate._Channels, "_title", broken_title)
    ok, lines = gate.score_channels("blind", path, with_detect_secrets=False)
    report = "\n".join(lines)
    assert not ok
    assert "1/2 (50.0%)" in report, report  # caught in the document, leaked where it raised
    assert "1/1 (100.0%)" not in report
    assert "counted out: every entry in p-pigeon: no such channel" in report
    assert "leaked: s-github in p-title" in report
    assert "flagged: n-sha in p-title" in report
    assert "error: s-github in p-title: RuntimeError: the title path failed" in report
    assert "second line" not in report
