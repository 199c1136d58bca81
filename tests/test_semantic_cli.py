"""`python -m attacks semantic ...` on the thesis's worked example."""

from __future__ import annotations

import json
from pathlib import Path

from test_semantic_golden import DATA, ORIGINAL, RECONSTRUCTED, example_release, example_truth

from anonymizer.io.release_files import save_release, save_truth
from attacks.__main__ import main as attacks_main
from corpora.dataset import TransactionDataset
from corpora.io.formats import write_dataset


def _files(tmp_path: Path) -> tuple[str, str, str]:
    rel, tru, orig = tmp_path / "release.json", tmp_path / "truth.json", tmp_path / "original.jsonl"
    save_release(example_release(), rel)
    save_truth(example_truth(), tru)
    write_dataset(TransactionDataset.from_records(ORIGINAL), orig)
    return str(rel), str(tru), str(orig)


def test_cli_writes_records_and_prints_metrics(tmp_path, capsys) -> None:
    rel, tru, orig = _files(tmp_path)
    out = tmp_path / "rec.jsonl"
    csv_out = tmp_path / "metrics.csv"
    argv = ["semantic", rel, "--scorer", f"table:{DATA}", "--selector", "RGA", "-o", str(out)]
    argv += ["--truth", tru, "--original", orig, "--no-wmd", "--bootstrap", "50", "--metrics-csv", str(csv_out)]
    assert attacks_main(argv) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [set(json.loads(line)) for line in lines] == RECONSTRUCTED
    captured = capsys.readouterr()
    assert "accuracy" in captured.out and "random" in captured.out and "RGA" in captured.out
    assert "unknown terms 0" in captured.err
    assert csv_out.read_text(encoding="utf-8").startswith("metric,part,method,value,lo,hi,n")


def test_cli_bad_input_is_one_line(tmp_path, capsys) -> None:
    rel, tru, _ = _files(tmp_path)
    out = tmp_path / "rec.jsonl"
    assert attacks_main(["semantic", rel, "--selector", "XYZ", "-o", str(out)]) == 2
    assert attacks_main(["semantic", rel, "--scorer", "table:/no/such.csv", "-o", str(out)]) == 2
    assert attacks_main(["semantic", rel, "--truth", tru, "-o", str(out), "--selector", "random"]) == 2
    assert attacks_main(["semantic", str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 4 and "Traceback" not in err
    assert not out.exists()


def test_cli_random_and_vpa_need_no_scorer(tmp_path) -> None:
    rel, _, _ = _files(tmp_path)
    for selector in ("random", "VPA"):
        out = tmp_path / f"{selector}.jsonl"
        assert attacks_main(["semantic", rel, "--selector", selector, "--seed", "4", "-o", str(out)]) == 0
        assert len(out.read_text(encoding="utf-8").splitlines()) == 4


def test_cli_json_holds_every_metric_and_the_paired_differences(tmp_path, capsys) -> None:
    rel, tru, orig = _files(tmp_path)
    argv = ["semantic", rel, "--scorer", f"table:{DATA}", "--selector", "ABA", "-o", str(tmp_path / "r.jsonl"),
            "--truth", tru, "--original", orig, "--no-wmd", "--bootstrap", "50", "--json"]
    assert attacks_main(argv) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj["metrics"]) == {"ABA", "random", "blind", "oracle"}
    # the thesis's Table 4.6: eq. 5.4 as printed (C_1 counted) 0.9, the disassociated terms only 0.75
    assert obj["metrics"]["ABA"]["accuracy"]["overall"]["value"] == 0.9
    assert obj["metrics"]["ABA"]["accuracy_one_to_one"]["overall"]["value"] == 0.9
    assert obj["metrics"]["ABA"]["accuracy_disassociated"]["overall"]["value"] == 0.75
    diff = obj["difference_vs_random"]["accuracy_disassociated"]["overall"]
    assert set(diff) == {"value", "lo", "hi", "n"} and diff["value"] == 0.5
    assert set(obj["difference_vs_random"]["accuracy"]["overall"]) == {"value", "lo", "hi", "n"}
    for metric in ("accuracy", "accuracy_one_to_one", "accuracy_disassociated"):
        assert obj["metrics"]["oracle"][metric]["overall"]["value"] == 1.0
    assert obj["info"]["selector"] == "ABA"


def test_cli_json_needs_truth_and_setting_needs_ngd(tmp_path, capsys) -> None:
    rel, _tru, _orig = _files(tmp_path)
    assert attacks_main(["semantic", rel, "-o", str(tmp_path / "r.jsonl"), "--json"]) == 2
    assert "--json needs --truth" in capsys.readouterr().err
    assert attacks_main(["semantic", rel, "-o", str(tmp_path / "r.jsonl"), "--scorer", "glove", "--ngd-setting",
                         "public"]) == 2
    assert "--ngd-setting needs --scorer ngd" in capsys.readouterr().err
