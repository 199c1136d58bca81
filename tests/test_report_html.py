"""The self-contained HTML reports (audit and sweep) and the provenance receipt, without a browser."""

from __future__ import annotations

import hashlib
import html as stdhtml
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attacks import audit
from attacks.report_html import render_audit_html
from corpora import load_dataset
from corpora.common import html as h
from corpora.common.errors import InputError
from corpora.common.receipt import make_receipt, mask_command, mask_credentials, sha256_file
from experiments.report.html import markdown_to_html, write_report_html

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
_FETCHING = re.compile(r"""(?:src|href|action|poster|data)\s*=\s*["']?(?!data:|#)[a-z][a-z0-9+.-]*:""", re.I)


def assert_self_contained(page: str) -> None:
    """No script, no external stylesheet, font or image; the policy that forbids fetching is declared."""
    lowered = page.lower()
    assert "<script" not in lowered and "<link" not in lowered and "@import" not in lowered
    assert "<iframe" not in lowered and "<object" not in lowered and "<embed" not in lowered
    assert not _FETCHING.search(page), _FETCHING.search(page)
    assert re.findall(r"url\(", lowered) == []
    assert f'content="{stdhtml.escape(h.CSP)}"' in page and "http-equiv=\"Content-Security-Policy\"" in page
    assert "@media print" in page


@pytest.fixture(scope="module")
def fig2_report() -> dict:
    """A real audit of Terrovitis2012 Figure 2b against its original (docs/examples), semantic attack off."""
    original = load_dataset(str(EXAMPLES / "fig2.jsonl"))
    return audit(EXAMPLES / "fig2b.json", original=original, semantic=False,
                 original_source="docs/examples/fig2.jsonl").to_dict()


def test_audit_page_is_self_contained_and_shows_every_check(fig2_report):
    page = render_audit_html(fig2_report)
    assert_self_contained(page)
    word = "PASS" if fig2_report["passed"] else "FAIL"
    assert f'<span class="word">{word}</span>' in page
    assert f"<title>Audit of {stdhtml.escape(fig2_report['release'])}: {word}</title>" in page
    table = page[page.index("<caption>The checks"):page.index("</table>", page.index("<caption>The checks"))]
    assert table.count("<tr") == len(fig2_report["checks"]) + 1
    for check in fig2_report["checks"]:
        assert stdhtml.escape(check["name"]) in table
        assert stdhtml.escape(check["detail"]) in page
    for attacker in fig2_report["attackers"]:
        assert f"<td>{attacker['attacker']}</td>" in page
    for line in fig2_report["recommendations"]:
        assert stdhtml.escape(line) in page
    # a column is there when a check fills it, else a line says it was not measured (the audit of main has none;
    # the threat-model audit fills them)
    checks = fig2_report["checks"]
    expected = ["check", "result", "value [95% interval]" if any(c.get("interval") for c in checks) else "value",
                "threshold"]
    missing = [] if any(c.get("interval") for c in checks) else ["intervals"]
    for key, column in (("baselines", "baselines [interval]"), ("paired", "attack − baseline [interval]")):
        (expected if any(c.get(key) for c in checks) else missing).append(column)
    header = re.search(r"<thead>.*?</thead>", page[page.index("<caption>The checks"):], re.S).group(0)
    assert re.findall(r'<th scope="col">([^<]*)</th>', header) == expected
    note = "Not in this report (the audit that made it measured none): "
    assert (note + ", ".join(missing) + ".") in page if missing else note not in page
    # the first screen comes first: banner, threat model, what was attacked, checks, what to change
    order = [page.index(s) for s in ('class="banner', "Against which attacker", "What was attacked",
                                     "<caption>The checks", '<h2 id="change">What to change</h2>')]
    assert order == sorted(order)
    banner = page[page.index('class="banner'):page.index("</div>", page.index('class="banner'))]
    assert not fig2_report["passed"]  # Figure 2b has cover problems: the banner says what to change
    assert "<strong>What to change: </strong>Publish a safe release instead (PEM 33.33%)" in banner
    assert f"<strong>In one line: </strong>{stdhtml.escape(fig2_report['verdict'])}" in page


def test_pem_value_and_threshold_in_percent(fig2_report):
    page = render_audit_html(fig2_report)
    pem = next(c for c in fig2_report["checks"] if c["name"] == "PEM")
    row = re.search(r"<tr[^>]*><td><div>PEM</div>.*?</tr>", page, re.S).group(0)
    shown = f"{pem['value']:.2%}" + (f" [{pem['interval'][0]:.2%}, {pem['interval'][1]:.2%}]"
                                     if pem.get("interval") else "")
    assert f'<td><span class="nowrap">{shown}</span></td>' in row
    assert f'<td><span class="nowrap">max {pem["threshold"]:.2%}</span></td>' in row


def _extended(report: dict) -> dict:
    """The dict contract's fields that the threat-model audit adds, on a real report."""
    out = json.loads(json.dumps(report))
    out["threat_model"] = {"sentence": "A moderate attacker who knows m = 2 items of each target and k."}
    for c in out["checks"]:
        if c["name"] == "strong attacker":
            c.update(interval=[0.01, 0.0425], level=0.95, reference="Barakat2016 Algorithm 1",
                     baselines=[{"name": "random placement", "value": 0.0125, "interval": [0.0, 0.03],
                                 "detail": "terms placed at random"},
                                {"name": "frequency only", "value": 0.02, "interval": None, "detail": ""}],
                     paired={"baseline": "random placement", "difference": 0.0075, "interval": [-0.005, 0.0175]})
    out["utility"] = {"status": "measured", "rows": [{"metric": "tKd", "value": 0.123, "detail": "top-k deviation"},
                                                     {"metric": "re", "value": 0.5, "detail": "relative error"}],
                      "summary": "The release keeps most frequent pairs."}
    out["skipped"] = [{"check": "semantic attack (NGD)", "reason": "the terms are numbers, not words"}]
    out["receipt"] = make_receipt({"release": EXAMPLES / "fig2b.json"}, ["python", "-m", "attacks", "audit"]).to_dict()
    out["future_field"] = {"anything": [1, 2]}
    return out


def test_every_field_of_the_contract_is_rendered(fig2_report):
    report = _extended(fig2_report)
    page = render_audit_html(report)
    assert_self_contained(page)
    assert "A moderate attacker who knows m = 2 items of each target and k." in page
    row = re.search(r"<tr[^>]*><td><div>strong attacker</div>.*?</tr>", page, re.S).group(0)
    assert '<th scope="col">value [95% interval]</th>' in page
    strong = next(c for c in report["checks"] if c["name"] == "strong attacker")
    assert f'<span class="nowrap">{strong["value"]:.2%} [1.00%, 4.25%]</span>' in row
    assert '<div>random placement <span class="nowrap">1.25% [0.00%, 3.00%]</span></div>' in row
    assert '<div>frequency only <span class="nowrap">2.00%</span></div>' in row
    assert '<span class="nowrap">+0.75% [-0.50%, 1.75%]</span> vs random placement' in row
    assert "Not in this report" not in page
    assert "reference: Barakat2016 Algorithm 1" in page and "terms placed at random" in page
    assert "<td>tKd</td><td class=\"num\">0.123</td><td>top-k deviation</td>" in page
    assert "The release keeps most frequent pairs." in page
    assert "semantic attack (NGD): the terms are numbers, not words" in page
    assert report["receipt"]["inputs"][0]["sha256"] in page
    assert "python -m attacks audit" in page
    assert "future_field" in page  # a field the renderer does not know is still shown
    assert '<svg' not in page and 'data:image/svg+xml;base64,' in page  # the risks figure, embedded


def test_a_threshold_on_the_paired_difference_says_so(fig2_report):
    report = json.loads(json.dumps(fig2_report))
    report["checks"] = [c for c in report["checks"] if c["name"] != "semantic attack"]
    report["checks"].append({"name": "semantic attack", "status": "pass", "value": 0.75, "threshold": 0.0,
                             "detail": "ABA", "interval": [0.25, 1.0], "level": 0.95, "gated_on": "paired",
                             "baselines": [{"name": "random", "value": 0.25, "interval": [0.0, 0.75],
                                            "difference": 0.5, "difference_interval": [0.0, 1.0]}],
                             "paired": {"baseline": "random", "difference": 0.5, "interval": [0.0, 1.0]}})
    page = render_audit_html(report)
    row = re.search(r"<tr[^>]*><td><div>semantic attack</div>.*?</tr>", page, re.S).group(0)
    assert "accuracy of the disassociated terms" in row
    assert '<span class="nowrap">max gain 0.00%</span>' in row and "over random (lower end of the paired" in row
    assert "baseline random: 25.00% [0.00%, 75.00%]; attack − baseline +50.00% [0.00%, 100.00%]" in page


def test_data_from_the_release_is_escaped(fig2_report):
    report = json.loads(json.dumps(fig2_report))
    report["release"] = "<script>alert(1)</script>.json"
    report["checks"][0]["detail"] = '<img src="http://evil.example/x.png" onerror="alert(1)">'
    report["recommendations"] = ["use <b>k</b> & more"]
    report["cover"]["examples"] = ["cluster 1: <term> covered by \"x\""]
    page = render_audit_html(report)
    assert_self_contained(page)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;.json" in page
    assert "<img src=\"http" not in page and "&lt;img src=&quot;http://evil.example/x.png&quot;" in page
    assert "use &lt;b&gt;k&lt;/b&gt; &amp; more" in page and "&lt;term&gt; covered by &quot;x&quot;" in page


def test_a_report_with_only_checks_renders():
    page = render_audit_html({"checks": [{"name": "PEM", "status": "pass", "value": 0.0, "threshold": 0.0,
                                          "detail": ""}]})
    assert_self_contained(page)
    assert '<span class="word">PASS</span>' in page and "No threat model was declared" in page


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_escape_round_trips_and_leaves_no_markup(value):
    escaped = h.escape(value)
    assert not set("<>\"'") & set(escaped)
    assert stdhtml.unescape(escaped) == value
    cell = h.table(["a"], [[value]])
    assert stdhtml.unescape(re.sub(r"<[^>]+>", "", cell)) == "a" + value


def test_html_fragments_are_not_escaped_twice():
    inner = h.tag("code", "a<b")
    assert h.paragraph("x ", inner) == "<p>x <code>a&lt;b</code></p>"
    assert h.details("more", inner, open_=True) == "<details open=\"True\"><summary>more</summary>" \
                                                   "<code>a&lt;b</code></details>"


def test_frame_table_and_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    frame = pd.DataFrame({"metric": ["re", "<x>"], "value": [0.25, 3]})
    table = h.frame_table(frame, caption="utility")
    assert "<caption>utility</caption>" in table and "<td>&lt;x&gt;</td>" in table
    assert '<td class="num">0.25</td>' in table and '<td class="num">3</td>' in table
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    for fmt, mime in (("svg", "image/svg+xml"), ("png", "image/png")):
        shown = h.figure(fig, "a line", caption="one line", fmt=fmt)
        assert f'src="data:{mime};base64,' in shown and "<figcaption>one line</figcaption>" in shown
    plt.close(fig)


# ------------------------------------------------------------------ the receipt


def test_receipt_hashes_equal_sha256_of_the_files(tmp_path):
    inputs = {"release": EXAMPLES / "fig2b.json", "original": EXAMPLES / "fig2.jsonl", "truth": None}
    receipt = make_receipt(inputs, ["python", "-m", "attacks", "audit", "docs/examples/fig2b.json"])
    assert [f.role for f in receipt.inputs] == ["release", "original"]
    for entry in receipt.inputs:
        data = Path(entry.path).read_bytes()
        assert entry.sha256 == hashlib.sha256(data).hexdigest() and entry.size == len(data)
        if shutil.which("sha256sum"):
            out = subprocess.run(["sha256sum", entry.path], capture_output=True, text=True, check=True).stdout
            assert out.split()[0] == entry.sha256
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * 20_000)  # several 1 MiB pieces
    assert sha256_file(big) == (hashlib.sha256(big.read_bytes()).hexdigest(), 256 * 20_000)
    data = receipt.to_dict()
    assert data["versions"]["disassociation-workbench"] and "numpy" in data["versions"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["time"])
    assert data["python"].count(".") == 2 and data["platform"]


def test_receipt_never_carries_the_truth_or_a_secret_seed():
    truth_path = EXAMPLES / "fig1-truth.json"
    truth = json.loads(truth_path.read_text())
    argv = ["python", "-m", "anonymizer", "in.jsonl", "-k", "2", "--seed", "123456789", "-o", "r.json"]
    receipt = make_receipt({"truth": truth_path}, argv)
    text = json.dumps(receipt.to_dict())
    assert "123456789" not in text and "--seed '***'" in receipt.command
    assert "clusters" not in text and json.dumps(truth["clusters"][0]["records"]) not in text
    assert mask_command(["anonymizer", "x", "--seed=42"]) == "anonymizer x '--seed=***'"
    with pytest.raises(ValueError, match="never carries a seed"):
        make_receipt({}, argv, extra={"thresholds": {"seed": 7}})


def test_the_audits_public_attack_seed_is_kept():
    assert mask_command(["python", "-m", "attacks", "audit", "r.json", "--seed", "3"]).endswith("--seed 3")
    assert mask_command(["/usr/bin/attacks", "audit", "r.json", "--seed", "3"]).endswith("--seed 3")
    assert make_receipt({}, ["attacks"], extra={"attack_seed": 3}).extra == {"attack_seed": 3}


def test_credentials_are_masked():
    argv = ["python", "-m", "attacks", "audit", "r.json", "--sql", "SELECT 1",
            "--db", "postgresql://alice:s3cret@db.example:5432/shop?sslmode=require&password=other"]
    command = make_receipt({}, argv).command
    assert "alice" not in command and "s3cret" not in command and "other" not in command
    assert "postgresql://***@db.example:5432/shop?sslmode=require&password=***" in command
    assert "'SELECT 1'" in command  # shell-quoted


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~%!$", min_size=6, max_size=30),
       st.sampled_from(["postgresql", "mysql+pymysql", "https", "sqlite"]))
def test_no_password_survives_masking(password, scheme):
    url = f"{scheme}://user:{password}@host/db"
    assert f":{password}@" not in mask_credentials(url)
    assert f":{password}@" not in mask_command(["anonymizer", "--db", url]) and "***@host/db" in mask_credentials(url)


def test_a_missing_input_is_one_line(tmp_path):
    with pytest.raises(InputError, match=r"nope\.json: cannot be read for the receipt") as err:
        make_receipt({"release": tmp_path / "nope.json"}, ["x"])
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match="cannot be read"):
        make_receipt({"release": tmp_path}, ["x"])


# ------------------------------------------------------------------ the sweep's report.html


def test_sweep_markdown_becomes_the_same_tables_and_figures(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (tmp_path / "figures").mkdir()
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4])
    fig.savefig(tmp_path / "figures" / "f1.png")
    fig.savefig(tmp_path / "figures" / "f1.svg")
    plt.close(fig)
    (tmp_path / "results.csv").write_text("run,metric,value\n", encoding="utf-8")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("name: s\n", encoding="utf-8")
    markdown = "\n".join([
        "# Sweep `s`", "", "A <b>note</b>.", "", "- runs: 2 declared", "- table: `results.csv`", "",
        "## Fig. 1", "", "![f1](figures/f1.png) ([svg](figures/f1.svg))", "", "*spread over seeds*", "",
        "| k | line | mean |", "|---|---|---|", "| 2 | a \\| b | 0.5 |", "| 3 | c | 0.7 |", "",
        "## Claims", "", "| claim | verdict |", "|---|---|", "| **rising** | matches |", "",
        "![gone](figures/gone.png)"])
    path = write_report_html(tmp_path, markdown, str(sweep), argv=["python", "-m", "experiments", "run", "s.yaml"])
    page = path.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert "<h1>Sweep <code>s</code></h1>" in page and "<p>A &lt;b&gt;note&lt;/b&gt;.</p>" in page
    assert "<li>table: <code>results.csv</code></li>" in page
    assert page.count('src="data:image/svg+xml;base64,') == 1
    assert "<summary>The numbers behind the figure (2 rows)</summary>" in page
    assert "<td>a | b</td>" in page
    assert "<td><strong>rising</strong></td>" in page and "<em>spread over seeds</em>" in page
    assert "(figure gone: figures/gone.png is missing)" in page
    assert hashlib.sha256(sweep.read_bytes()).hexdigest() in page
    assert hashlib.sha256((tmp_path / "results.csv").read_bytes()).hexdigest() in page
    assert "python -m experiments run s.yaml" in page
    assert len(markdown_to_html("| only |", tmp_path)) == 1


def _task(config):
    k, seed = config["k"], config["seed"]
    return [{"metric": "pem", "value": 0.1 * k + 0.01 * seed, "attack": "cover", "method": "strong"}]


def test_the_sweep_runner_writes_report_html_beside_report_md(tmp_path):
    import yaml

    from experiments.sweep.runner import run_sweep
    from experiments.sweep.schema import load_sweep

    sweep = tmp_path / "tiny.yaml"
    sweep.write_text(yaml.safe_dump({
        "name": "tiny", "datasets": ["toy-a"], "grid": {"k": [2, 3], "m": 2}, "metrics": ["pem"], "seeds": [0, 1],
        "attacks": {"cover": {"attackers": ["strong"]}},
        "plots": [{"id": "pem-k", "metric": "pem", "x": "k", "group_by": "method"}]}), encoding="utf-8")
    result = run_sweep(load_sweep(sweep), results_root=tmp_path / "results", task=_task)
    page = (result.directory / "report.html").read_text(encoding="utf-8")
    markdown = result.report_path.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert "<h2>" in page and page.count("data:image/") == 1
    for line in markdown.splitlines():
        if line.startswith("| 2 |") or line.startswith("| 3 |"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert "".join(f"<td>{c}</td>" for c in cells[:2]) in page
    assert hashlib.sha256(sweep.read_bytes()).hexdigest() in page
