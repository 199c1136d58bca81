"""One parameters type per method (anonymizer.model.params): checked once, one set of defaults, the
release's ``params`` JSON both ways, and every way of starting a run builds the same object."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pickle

import pytest

from anonymizer.baselines.apriori import apriori_anonymize
from anonymizer.baselines.diffpart import diffpart
from anonymizer.baselines.hierarchy import balanced_hierarchy
from anonymizer.cli import TOOL, run_command
from anonymizer.cli.anonymize import disassociation_params
from anonymizer.cli.baselines import baseline_params
from anonymizer.disassociation import horpart, safe, verpart
from anonymizer.disassociation.pipeline import disassociate, run_disassociation
from anonymizer.io.release_files import load_release
from anonymizer.model.params import (
    AprioriParams,
    DiffPartParams,
    DisassociationParams,
    default_max_cluster_size,
)
from corpora.common.cli import command_parser
from corpora.common.errors import InputError
from corpora.synthetic.toy import toy_dataset, toy_records


@pytest.mark.parametrize("params", [
    DisassociationParams(),
    DisassociationParams(2, 3, 7, "adding", "grouped", False, True, "every"),
    DisassociationParams(4, 2, None, "abandon", "original", split_depth=3, identifiers_allowed=True),
])
def test_disassociation_round_trip(params):
    published = params.to_json()
    assert list(published)[:7] == ["k", "m", "max_cluster_size", "horpart", "verpart", "refine", "safe"]
    again = DisassociationParams.from_json(json.loads(json.dumps(published)))
    assert again.to_json() == published
    assert dataclasses.replace(again, safe_targets=params.safe_targets, max_itemsets=params.max_itemsets) == params
    assert pickle.loads(pickle.dumps(params)) == params


@pytest.mark.parametrize("params", [AprioriParams(), AprioriParams(5, 3, "tree.txt", True),
                                    DiffPartParams(), DiffPartParams(0.5, "fanout:7", 1.5, identifiers_allowed=True)])
def test_baseline_round_trip(params):
    published = params.to_json()
    assert type(params).from_json(json.loads(json.dumps(published))).to_json() == published


def test_defaults():
    p = DisassociationParams()
    assert (p.k, p.m, p.max_cluster_size, p.horpart, p.verpart, p.refine, p.safe, p.split_depth) == \
        (3, 2, 30, "original", "strict", True, False, 0)
    assert DisassociationParams(k=20).max_cluster_size == 39 == default_max_cluster_size(20)
    assert AprioriParams().to_json() == {"k": 3, "m": 2, "hierarchy": "fanout:5"}
    assert DiffPartParams().to_json() == {"epsilon": 1.0, "hierarchy": "fanout:5", "threshold_sd": 2.0}
    assert AprioriParams(hierarchy="fanout:7").fanout == 7 and AprioriParams(hierarchy="h.txt").fanout is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.k = 4  # type: ignore[misc]


@pytest.mark.parametrize("kwargs, message", [
    (dict(k=1), "k must be an integer >= 2, got 1"),
    (dict(k=2.5), "k must be an integer >= 2, got 2.5"),
    (dict(k=True), "k must be an integer >= 2, got True"),
    (dict(m=0), "m must be an integer >= 1, got 0"),
    (dict(k=3, max_cluster_size=2), r"max cluster size must be an integer >= k \(3\), got 2"),
    (dict(k=3, max_cluster_size=4), "max cluster size 4 is below 2k - 1 = 5: horpart 'original'"),
    (dict(horpart="clever"), "unknown horpart strategy 'clever'; choose one of: original, abandon"),
    (dict(verpart="loose"), "unknown verpart variant 'loose'; choose one of: original, strict, grouped"),
    (dict(safe_targets="some"), "targets must be one of every, linkable, got 'some'"),
    (dict(split_depth=17), "split depth must be an integer from 0 to 16, got 17"),
    (dict(split_depth=-1), "split depth must be an integer from 0 to 16, got -1"),
])
def test_each_disassociation_check_fires(kwargs, message):
    with pytest.raises(InputError, match=message):
        DisassociationParams(**kwargs)


def test_abandon_accepts_a_small_maximum_and_records_are_checked():
    assert DisassociationParams(3, 2, 4, "abandon").max_cluster_size == 4
    with pytest.raises(InputError, match="the dataset has 2 records, fewer than k = 3"):
        DisassociationParams().check_records(2)
    with pytest.raises(InputError, match="k=3 is larger than the dataset's 2 non-empty records"):
        AprioriParams().check_records(2)


@pytest.mark.parametrize("build, message", [
    (lambda: AprioriParams(k=1), "k must be an integer >= 2"),
    (lambda: AprioriParams(m=0), "m must be an integer >= 1"),
    (lambda: AprioriParams(hierarchy="fanout:1"), "--fanout must be an integer >= 2, got 1"),
    (lambda: DiffPartParams(0), "epsilon must be a positive number, got 0"),
    (lambda: DiffPartParams(float("inf")), "epsilon must be a positive number"),
    (lambda: DiffPartParams(1.0, threshold_sd=-1), "threshold must be a number >= 0, got -1"),
    (lambda: DisassociationParams.from_json({"k": 3, "m": 2, "seed": 4}), "unknown key"),
])
def test_each_baseline_check_fires(build, message):
    with pytest.raises(InputError, match=message):
        build()


def test_from_mapping_reads_a_run_configuration():
    config = {"dataset": "x", "seed": 3, "metrics": ["tkd"], "k": 4, "m": 3, "max_cluster_size": 10,
              "horpart": "abandon", "verpart": "grouped", "refine": False, "safe": True, "anonymizer": "apriori",
              "epsilon": 0.5, "fanout": 7}
    assert DisassociationParams.from_mapping(config) == DisassociationParams(4, 3, 10, "abandon", "grouped", False,
                                                                              True)
    assert DisassociationParams.from_mapping({"k": 20}).max_cluster_size == 39
    assert AprioriParams.from_mapping(config) == AprioriParams(4, 3, "fanout:7")
    assert DiffPartParams.from_mapping(config) == DiffPartParams(0.5, "fanout:7")
    assert DiffPartParams.from_mapping({}) == DiffPartParams()


def test_the_engine_keeps_its_own_names_for_the_same_choices():
    params = importlib.import_module("anonymizer.model.params")
    assert params.HORPART_STRATEGIES == horpart.HORPART_STRATEGIES
    assert params.BOUNDED_STRATEGIES == horpart.BOUNDED_STRATEGIES
    assert params.VERPART_STRATEGIES == verpart.VERPART_STRATEGIES
    assert params.DEFAULT_MAX_ITEMSETS == verpart.DEFAULT_MAX_ITEMSETS
    assert params.SAFE_TARGETS == safe.TARGETS


def test_api_split_and_cli_publish_the_same_params(tmp_path):
    ds = toy_dataset("terrovitis2012-fig2")
    params = DisassociationParams(2, 2, 5, "adding", "grouped", False)
    release, _ = disassociate(ds, 2, 2, 5, horpart="adding", verpart="grouped", refine=False, seed=1)
    assert release.params == params.to_json()
    assert disassociate(ds, params=params, seed=1)[0].to_json() == release.to_json()
    split = dataclasses.replace(params, split_depth=1)
    assert run_disassociation(ds, split, seed=1).release.params == split.to_json()
    data = tmp_path / "fig2.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in toy_records("terrovitis2012-fig2")), encoding="utf-8")
    argv = [str(data), "-k", "2", "-m", "2", "--max-cluster-size", "5", "--horpart", "adding", "--verpart",
            "grouped", "--no-refine", "--seed", "1"]
    parser = command_parser(TOOL, "anonymize", TOOL.module("anonymize"))
    assert disassociation_params(parser.parse_args([*argv, "-o", "x.json"])) == params
    for extra, expected in (([], params), (["--split-depth", "1"], split)):
        out = tmp_path / "r.json"
        assert run_command("anonymize", [*argv, *extra, "-o", str(out)]) == 0
        assert load_release(out).params == expected.to_json()


def test_keywords_and_params_are_not_mixed():
    ds = toy_dataset("terrovitis2012-fig2")
    with pytest.raises(InputError, match="not both"):
        disassociate(ds, k=2, params=DisassociationParams(2))


def test_baselines_build_the_same_params_from_the_api_and_the_cli():
    ds = toy_dataset("terrovitis2012-fig2")
    h = balanced_hierarchy(ds.vocabulary, 3)
    assert apriori_anonymize(ds, h, 2, 2).params == AprioriParams(2, 2, "fanout:3").to_json()
    assert diffpart(ds, h, 0.5, seed=1)[0].params == DiffPartParams(0.5, "fanout:3").to_json()
    parser = command_parser(TOOL, "anonymize", TOOL.module("anonymize"))
    args = parser.parse_args(["x", "--method", "apriori", "-k", "2", "-m", "2", "--fanout", "3", "-o", "r.json"])
    assert baseline_params(args) == AprioriParams(2, 2, "fanout:3")
    args = parser.parse_args(["x", "--method", "diffpart", "--epsilon", "0.5", "--fanout", "3", "-o", "r.json"])
    assert baseline_params(args) == DiffPartParams(0.5, "fanout:3")
    args = parser.parse_args(["x", "--method", "diffpart", "--epsilon", "0.5", "--threshold", "-1", "-o", "r.json"])
    with pytest.raises(InputError, match="^--threshold must be a number >= 0, got -1.0$"):
        baseline_params(args)


def test_every_command_module_has_the_dispatcher_shape():
    for module_name, text in TOOL.commands.values():
        module = importlib.import_module(module_name)
        assert module.HELP == text and module.DESCRIPTION
        assert callable(module.add_arguments) and callable(module.run)
    with pytest.raises(InputError, match="unknown command 'frobnicate'"):
        run_command("frobnicate", [])
