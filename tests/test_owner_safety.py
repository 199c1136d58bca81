"""A data owner's mistakes never publish an identifier, and the audit's verdict follows its evidence (issue 21).

The owner scenario end to end, from the command line: a long CSV of (customer e-mail, product)
rows read with default options, with swapped columns, read correctly; the audit of the correct
release, its recommended command run as printed, the audit of that release, its utility; a
release holding e-mail terms; mismatched originals. Then the layout rule on the header spellings
and the project's own examples, the identifier patterns, and a property test: whatever the user
ids, none reaches a release or a printed line.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from cli_runner import run_tool
from hypothesis import HealthCheck, given, settings
from user_rows import user_item_rows

from anonymizer import disassociate
from anonymizer.__main__ import main as anonymizer_main
from anonymizer.evaluation.consistency import check_original, check_truth
from attacks import audit
from attacks.cover.knowledge import make_knowledge
from corpora import load_dataset, read_dataset
from corpora.common.errors import InputError
from corpora.io.headers import long_layout_reason
from corpora.io.identifiers import identifier_kind, mask, screen_terms

ROOT = Path(__file__).resolve().parents[1]
EMAIL = re.compile(r"[\w.]+@example\.com")
LONG = ["--format", "long", "--user-column", "customer_email", "--item-column", "product"]


def _run(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_tool(module, args, cwd=cwd)  # in-process: python -m MODULE ARGS


@pytest.fixture(scope="module")
def owner(tmp_path_factory) -> Path:
    """400 customers' baskets (synthetic, 60 products) as one (customer_email, product) row per item, with its
    header (baskets.csv) and without (noheader.csv). Every test reading a file of it finds it here: the tests of
    one module can run in different worker processes, each with its own folder."""
    folder = tmp_path_factory.mktemp("owner")
    ds = load_dataset("synthetic:records=400,domain=60,avg_length=5,seed=3")
    lines = ["customer_email,product"]
    lines += [f"c{i:04d}.buyer@example.com,p{t}" for i, record in enumerate(ds) for t in sorted(record)]
    (folder / "baskets.csv").write_text("\n".join(lines) + "\n")
    (folder / "noheader.csv").write_text("\n".join(lines[1:]) + "\n")
    return folder


def _one_line_refusal(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert not EMAIL.search(done.stderr + done.stdout)
    return lines[0]


def test_default_options_and_swapped_columns_are_refused(owner):
    line = _one_line_refusal(_run("anonymizer", "baskets.csv", "-k", "5", "-m", "2", "-o", "r.json", cwd=owner))
    assert "names a user column ('customer_email')" in line and "--format long --user-column" in line
    swapped = ["--format", "long", "--user-column", "product", "--item-column", "customer_email"]
    line = _one_line_refusal(_run("anonymizer", "baskets.csv", *swapped, "-k", "5", "-m", "2", "-o", "r.json",
                                  cwd=owner))
    assert "swapped" in line
    # the same table without its header, columns swapped by index: the e-mails are screened
    line = _one_line_refusal(_run("anonymizer", "noheader.csv", "--format", "long", "--user-column", "1",
                                  "--item-column", "0", "-k", "5", "-m", "2", "-o", "r.json", cwd=owner))
    assert "look like direct identifiers (e-mail 400" in line and "--allow-identifiers" in line
    assert not (owner / "r.json").exists()


@pytest.mark.slow
def test_correct_release_audit_recommendation_runs_and_is_scored(owner):
    made = _run("anonymizer", "baskets.csv", *LONG, "-k", "5", "-m", "2", "--seed", "1", "-o", "release.json",
                "--truth", "truth.json", cwd=owner)
    assert made.returncode == 0, made.stderr
    assert not EMAIL.search((owner / "release.json").read_text() + made.stdout + made.stderr)
    done = _run("attacks", "audit", "release.json", "--truth", "truth.json", "--original", "baskets.csv", *LONG,
                "--json", cwd=owner)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"].startswith("FAIL (PEM") and report["commands"]
    command = report["commands"][0]
    # the recommended command reads the original as the audit read it, and runs as printed
    assert command.startswith("python -m anonymizer baskets.csv --format long --user-column customer_email "
                              "--item-column product -k 5 -m 2 --max-cluster-size 30")
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "anonymizer"] and "--safe" in words
    rerun = _run("anonymizer", *words[3:], cwd=owner)
    assert rerun.returncode == 0, rerun.stderr
    assert not EMAIL.search((owner / "safe-release.json").read_text() + rerun.stdout)
    again = _run("attacks", "audit", "safe-release.json", "--truth", "safe-truth.json", "--original", "baskets.csv",
                 *LONG, "--json", cwd=owner)
    assert again.returncode in (0, 1), again.stderr
    second = json.loads(again.stdout)
    checks = {c["name"]: c for c in second["checks"]}
    assert checks["PEM"]["status"] == "pass" and checks["identifiers"]["status"] == "pass"
    if second["passed"]:  # PASS lists every residual risk with its value
        assert "strong attacker" in second["verdict"] and "(max 5.00%)" in second["verdict"]
    # a safe release (ghost records) gets a utility report with Awad2019's metrics
    scored = _run("anonymizer", "utility", "baskets.csv", *LONG, "safe-release.json", "--before", "release.json",
                  "--json", cwd=owner)
    assert scored.returncode == 0, scored.stderr
    figures = json.loads(scored.stdout)
    assert figures["rlm"] is not None and figures["rae"] is not None and figures["re_range_adapted"] is True


def test_release_holding_an_email_fails_the_audit_with_the_terms_masked(owner):
    # the owner insists (--allow-identifiers): the release says so, and the audit still fails it
    made = _run("anonymizer", "noheader.csv", "--format", "long", "--user-column", "1", "--item-column", "0",
                "-k", "5", "-m", "2", "--allow-identifiers", "-o", "leaky.json", cwd=owner)
    assert made.returncode == 0, made.stderr
    assert json.loads((owner / "leaky.json").read_text())["params"]["identifiers_allowed"] is True
    done = _run("attacks", "audit", "leaky.json", "--no-semantic", cwd=owner)
    assert done.returncode == 1 and "identifiers" in done.stdout.split("\n")[2]
    assert not EMAIL.search(done.stdout + done.stderr) and "c****.*****@*******.***" in done.stdout
    allowed = _run("attacks", "audit", "leaky.json", "--no-semantic", "--allow-identifiers", "--json", cwd=owner)
    checks = {c["name"]: c["status"] for c in json.loads(allowed.stdout)["checks"]}
    assert checks["identifiers"] == "info"


@pytest.mark.slow
def test_mismatched_original_is_bad_input_everywhere(owner, tmp_path):
    (tmp_path / "six.jsonl").write_text("".join(json.dumps([f"p{i}", f"p{i + 1}"]) + "\n" for i in range(6)))
    for original in (["kosarak10k"], [str(tmp_path / "six.jsonl")], ["baskets.csv", "--format", "basket",
                                                                       "--header"]):
        for command in (["attacks", "audit", "release.json", "--original", *original],
                        ["attacks", "cover", "release.json", "--original", *original]):
            line = _one_line_refusal(_run(*command, cwd=owner))
            assert "does not match the release" in line
    wrong = _run("attacks", "audit", "release.json", "--truth", "safe-truth.json", cwd=owner)
    assert wrong.returncode == 2


def test_consistency_api():
    ds = load_dataset("terrovitis2012-fig2")
    release, truth = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1)
    check_original(release, ds)
    check_truth(release, truth, ds)
    other = load_dataset("alshuhail2021-table4.2")
    for call in (lambda: check_original(release, other), lambda: check_truth(release, truth, other),
                 lambda: audit(release, original=other, semantic=False),
                 lambda: make_knowledge(release, "strong", original=other)):
        with pytest.raises(InputError, match="does not match"):
            call()
    # the same records in another order: the truth's records are not the original's
    shuffled = type(ds).from_records(list(reversed(ds.records)))
    with pytest.raises(InputError, match="does not match"):
        check_truth(release, truth, shuffled)
    safe, safe_truth = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1, safe=True)
    check_original(safe, ds)
    check_truth(safe, safe_truth, ds)


# ---------------------------------------------------------------------------------------- the layout rule
@pytest.mark.parametrize("header", ["customer_email,product", "email,product", "user_id,item,when",
                                    "Customer ID,product", "id,item", "e-mail,article", "user,query"])
def test_headers_naming_a_user_column_are_refused(tmp_path, header):
    width = header.count(",") + 1
    rows = [header] + [",".join(["x1"] + [f"v{i}{j}" for j in range(width - 1)]) for i in range(3)]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match="names a user column.*--format long --user-column"):
        read_dataset(path)
    assert len(read_dataset(path, format="basket", header=True)) == 3  # declared: read as baskets


def test_the_projects_own_examples():
    with pytest.raises(InputError, match="names a user column"):
        read_dataset(ROOT / "docs/examples/orders.csv")
    assert len(read_dataset(ROOT / "docs/examples/orders.tsv")) == 6  # kdd groups by user
    long = read_dataset(ROOT / "docs/examples/orders.csv", format="long", user_column="user_id", item_column="item")
    assert len(long) == 6 and not {"u1", "2024-01-02", "user_id"} & set(long.vocabulary)


def test_layout_shapes():
    pairs = [["u1", "milk"], ["u1", "bread"], ["u2", "milk"]]
    assert "first field repeats" in long_layout_reason(pairs)
    assert "consecutive" in long_layout_reason([["u1", "flu", "d1"], ["u1", "ikea", "d2"], ["u2", "flu", "d3"]])
    baskets = [["milk", "bread", "eggs"], ["bread", "jam"], ["milk"], ["eggs", "milk"]]
    assert long_layout_reason(baskets) is None
    assert long_layout_reason([["milk", "bread"], ["eggs", "jam"]]) is None  # pairs, no repeat
    # a first-line word that recurs below is data, not a header
    assert long_layout_reason([["user", "milk", "tea"], ["user", "bread"], ["jam"]]) is None


# ---------------------------------------------------------------------------------------- identifier patterns
FLAGGED = {
    "ann.lee@example.org": "e-mail", "mailto:bob@mail.co.uk": "e-mail",
    "https://ann:secret@host.example/x": "url-with-user", "/home/ann/notes.txt": "url-with-user",
    "C:\\Users\\bob\\file": "url-with-user", "http://site.example/~carol": "url-with-user",
    "https://shop.example/cart?user=12&x=1": "url-with-user",
    "192.168.0.12": "ip-address", "2001:db8::ff00:42:8329": "ip-address",
    "+44 20 7946 0958": "phone", "(555) 123-4567": "phone", "555-123-4567": "phone",
    "123456789": "numeric-id", "customer 4711000012": "numeric-id",
    "550e8400-e29b-41d4-a716-446655440000": "hex-id", "9f86d081884c7d659a2feaa0": "hex-id",
}
CLEAN = ["milk", "audi a4", "www.google.com", "http://www.example.com/page", "2024-01-02", "10:30", "41270",
         "123456", "facade", "deadbeefcafe", "1.2.3", "v2.0.1", "c++", "at&t", "24/7", "3.14159", "k-means",
         "2024-01-02 10:30", "iso 9001", "covid-19"]


@pytest.mark.parametrize("term,kind", sorted(FLAGGED.items()))
def test_identifier_patterns_flag(term, kind):
    assert identifier_kind(term) == kind


@pytest.mark.parametrize("term", CLEAN)
def test_identifier_patterns_leave_ordinary_terms(term):
    assert identifier_kind(term) is None


def test_screen_counts_kinds_masks_and_user_values():
    screen = screen_terms(["milk", "ann@example.org", "u17", "bob@example.org"], user_values=["u17"])
    assert screen.count == 3 and screen.kinds == {"e-mail": 2, "user-id": 1}
    assert screen.examples == ("a**@*******.***", "b**@*******.***", "u**")
    assert "ann" not in screen.describe() and "ann" not in json.dumps(screen.to_dict())
    assert mask("x" * 50).endswith("...")


def test_reader_keeps_items_equal_to_user_values(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("user,item\nu1,milk\nu1,u2\nu2,tea\n")
    ds = read_dataset(path, format="long")
    with pytest.raises(InputError, match=r"user-id 1; e\.g\. 'u\*'"):
        disassociate(ds, k=2, m=1, max_cluster_size=3)
    release, _ = disassociate(ds, k=2, m=1, max_cluster_size=3, allow_identifiers=True, seed=1)
    assert release.params["identifiers_allowed"] is True


# ---------------------------------------------------------------------------------------- property
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=user_item_rows())
def test_no_user_id_reaches_a_release_or_a_printed_line(tmp_path_factory, case):
    users, pairs = case
    folder = tmp_path_factory.mktemp("prop")
    rows = [f"{user},{item}" for user, item in pairs]
    path = folder / "long.csv"
    path.write_text("who,what\n" + "\n".join(rows) + "\n")
    out, err = io.StringIO(), io.StringIO()
    argv = [str(path), "--format", "long", "--user-column", "who", "--item-column", "what", "-k", "2", "-m", "1",
            "-o", str(folder / "r.json"), "--truth", str(folder / "t.json"), "--seed", "1"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = anonymizer_main(argv)
    printed = out.getvalue() + err.getvalue()
    published = (folder / "r.json").read_text() if (folder / "r.json").exists() else ""
    assert status in (0, 2)
    for user in users:
        token = re.compile(rf"(?<![\w.-]){re.escape(user)}(?![\w.-])")
        assert not token.search(printed), (user, printed)
        assert f'"{user}"' not in published
    if status == 2:
        assert published == "" and "user-id" in printed


def test_a_vocabulary_term_no_record_holds_is_not_missing_from_the_release():
    # a synthetic generator's domain can list terms that no record drew: the original still matches
    ds = load_dataset("synthetic:records=300,domain=2000,avg_length=3,seed=4")
    assert (ds.term_supports() == 0).any()
    release, truth = disassociate(ds, k=3, m=2, seed=1)
    check_original(release, ds)
    check_truth(release, truth, ds)
