"""The claim checker judges the whole curve against the runs' noise and the level against the paper's
numbers (issue 24): the first-and-last comparison called these curves "matches"."""

import math

import pandas as pd
import pytest

from corpora.common.errors import InputError
from experiments.report.claims import Claim, evaluate_claim, judge_level, judge_trend, ratio_text
from experiments.report.claims_table import claims_table, settings_table
from experiments.sweep.schema import parse_sweep
from experiments.sweep.spec import OurSetting, PaperValue

SPREAD = (-0.0001, 0.0, 0.0001)
"""Three seeds 0.01 points apart (in percent): a tiny run-to-run spread."""


def curve(means_by_x, metric="pem", x="max_cluster_size", spread=SPREAD, **columns):
    """A results frame: at each x, one row per seed around the given mean (given in percent)."""
    rows = []
    for at, mean in means_by_x.items():
        for seed, d in enumerate(spread):
            rows.append({"status": "ok", "metric": metric, "dataset": "BMS1", x: at, "seed": seed,
                         "value": mean / 100 + d, **columns})
    return pd.DataFrame(rows)


AWAD_FIG4 = {10: 0.99, 20: 2.02, 30: 2.35, 40: 1.78, 50: 1.90, 60: 2.14}
"""Awad2019 Fig. 4 BMS1 as the issue measured it (percent)."""


def claim(**kw):
    base = {"id": "c", "statement": "PEM rises with delta", "metric": "pem", "x": "max_cluster_size",
            "where": (("dataset", ("BMS1",)),), "trend": "rising", "tolerance": 1.0}
    base.update(kw)
    return Claim(**base)


def test_a_drop_far_beyond_the_noise_is_not_a_rising_curve():
    """0.99 -> 2.14 gains 1.15 points (beyond the 1-point tolerance) but drops 0.57 at 30 -> 40,
    with seeds 0.01 points apart: the old first-and-last check called it "trend matches"."""
    r = evaluate_claim(curve(AWAD_FIG4), claim())
    assert r.verdict == "differs"
    assert r.trend.worst_at == (30.0, 40.0) and r.trend.worst == pytest.approx(0.57)
    assert r.trend.steps_with == 4 and r.trend.rho == pytest.approx(0.3714, abs=1e-3)
    [_, _, line] = claims_table([r])
    assert "max_cluster_size=10,20,30,40,50,60: 0.99, 2.02, 2.35, 1.78, 1.9, 2.14" in line
    assert "rho 0.37; 4/5 steps up; total +1.15; step 30->40: -0.57 against the trend" in line


def test_a_dip_inside_the_noise_is_still_rising():
    wide = (-0.02, 0.0, 0.02)  # seeds 2 points apart: the 0.57 dip is within twice its standard error
    assert evaluate_claim(curve(AWAD_FIG4, spread=wide), claim()).verdict == "matches"


def test_a_single_run_falls_back_to_the_tolerance():
    one = (0.0,)
    assert evaluate_claim(curve(AWAD_FIG4, spread=one), claim()).verdict == "matches"  # 0.57 <= 1
    assert evaluate_claim(curve(AWAD_FIG4, spread=one), claim(tolerance=0.5)).verdict == "differs"


def test_step_tolerance_is_the_least_step_that_counts():
    assert evaluate_claim(curve(AWAD_FIG4), claim(step_tolerance=0.6)).verdict == "matches"


def test_a_twentyfold_level_gap_with_the_right_trend_is_trend_only():
    paper = {10: 20.0, 20: 40.0, 30: 60.0}
    ours = {x: v / 20 for x, v in paper.items()}
    r = evaluate_claim(curve(ours), claim(paper=tuple(paper.items()), tolerance=0.5))
    assert r.verdict == "trend only (level x0.05)"
    assert r.level.ratio == pytest.approx(0.05)
    [_, _, line] = claims_table([r])
    assert "| x0.05 (max_cluster_size=10 x0.05 off, " in line
    # the same level reached: matches; the trend alone failing: differs, whatever the level
    assert evaluate_claim(curve(paper), claim(paper=tuple(paper.items()))).verdict == "matches"
    falling = {10: 60.0, 20: 40.0, 30: 20.0}
    assert evaluate_claim(curve(falling), claim(paper=tuple(paper.items()))).verdict == "differs"


def test_paper_values_without_a_trend_report_the_ratio():
    c = claim(trend=None, paper=((10, 17.0),), tolerance=0.0)
    assert evaluate_claim(curve({10: 14.0}), c).verdict == "matches"  # x0.82: inside [2/3, 3/2]
    assert evaluate_claim(curve({10: 1.7}), c).verdict == "differs (level x0.1)"
    assert evaluate_claim(curve({10: 16.0}), claim(trend=None, paper=((10, 17.0),), tolerance=1.0)).verdict \
        == "matches"


def test_a_bound_must_be_passed():
    """Fig. 5.1: accuracy "rising to over 90%" at k = 5."""
    over = claim(x="k", metric="accuracy", trend="rising", paper=(PaperValue(5, 90.0, ">"),))
    rising = {2: 40.0, 3: 60.0, 4: 80.0, 5: 93.0}
    assert evaluate_claim(curve(rising, metric="accuracy", x="k"), over).verdict == "matches"
    short = {**rising, 5: 85.0}
    r = evaluate_claim(curve(short, metric="accuracy", x="k"), over)
    assert r.verdict == "trend only (level x0.94)"
    [_, _, line] = claims_table([r])
    assert "rising; k=5: >90" in line and "k=5 x0.94 (85 not >90) off" in line
    under = claim(x="k", trend=None, paper=(PaperValue(5, 10.0, "<"),))
    assert evaluate_claim(curve({5: 8.0}, x="k"), under).verdict == "matches"
    assert evaluate_claim(curve({5: 12.0}, x="k"), under).verdict == "differs (level x1.2)"


def test_a_mean_over_every_x_is_compared_with_an_aggregate():
    """The abstract's "about 60%" is not tied to one k: the mean over the swept k is compared."""
    about = claim(x="k", trend=None, paper=(PaperValue(None, 60.0),), tolerance=5.0)
    ours = {2: 43.7, 3: 55.0, 4: 62.0, 5: 70.2}  # mean 57.7
    r = evaluate_claim(curve(ours, x="k"), about)
    assert r.verdict == "matches" and r.level.points[0].ours == pytest.approx(57.725)
    [_, _, line] = claims_table([r])
    assert "| mean 60 |" in line and "mean 57.7 (range 43.7-70.2)" in line
    assert evaluate_claim(curve({2: 10.0, 3: 14.0}, x="k"), about).verdict == "differs (level x0.2)"


def test_flat_is_judged_on_the_range_of_every_point():
    flat = claim(trend="flat", tolerance=5.0)
    assert evaluate_claim(curve({2: 4.0, 5: 12.0, 10: 4.5}), flat).verdict == "differs"  # first = last, peak 8 up
    assert evaluate_claim(curve({2: 4.0, 5: 8.0, 10: 6.0}), flat).verdict == "matches"


def test_a_trend_needs_two_x_values():
    assert evaluate_claim(curve({10: 1.0}), claim()).verdict == "no data"


def frame_by_dataset(values):
    """(dataset, method) -> runs, for a categorical x."""
    rows = []
    for (dataset, method), runs in values.items():
        for seed, v in enumerate(runs):
            rows.append({"status": "ok", "metric": "tkd", "dataset": dataset, "method": method, "seed": seed,
                         "value": v, "k": 5})
    return pd.DataFrame(rows)


def test_a_rival_on_every_category_with_lower():
    """Terrovitis2012 Fig. 11: disassociation loses fewer top itemsets (tKd) than Apriori on every dataset."""
    df = frame_by_dataset({("POS", "disassociation"): [0.05, 0.05], ("POS", "apriori"): [0.30, 0.32],
                           ("WV1", "disassociation"): [0.10, 0.11], ("WV1", "apriori"): [0.40, 0.41],
                           ("WV2", "disassociation"): [0.20, 0.21], ("WV2", "apriori"): [0.15, 0.16]})
    c = Claim("fig11", "disassociation below Apriori", "tkd", "dataset",
              (("dataset", ("POS", "WV1", "WV2")), ("method", ("disassociation",))),
              rival=(("method", ("apriori",)),), lower=True)
    r = evaluate_claim(df, c)
    assert set(r.ours) == {"POS", "WV1", "WV2"} and r.versus.beats == 2 and r.verdict == "differs"
    [_, _, line] = claims_table([r])
    assert "below method=apriori" in line and "dataset=POS,WV1,WV2: 5, 10.5, 20.5 vs 31, 40.5, 15.5" in line
    assert "below the rival at 2/3" in line
    fixed = frame_by_dataset({("POS", "disassociation"): [0.05, 0.05], ("POS", "apriori"): [0.30, 0.32],
                              ("WV1", "disassociation"): [0.10, 0.11], ("WV1", "apriori"): [0.40, 0.41]})
    assert evaluate_claim(fixed, c).verdict == "matches"
    assert evaluate_claim(fixed, Claim(**{**c.__dict__, "lower": False})).verdict == "differs"


def test_the_rival_margin_is_the_noise_of_the_difference():
    """Ahead by 2 points on average, but the paired differences swing +-8 points: not a win."""
    df = frame_by_dataset({("POS", "a"): [0.30, 0.40, 0.20], ("POS", "b"): [0.26, 0.30, 0.28]})
    c = Claim("x", "a beats b", "tkd", "dataset", (("method", ("a",)),), rival=(("method", ("b",)),))
    r = evaluate_claim(df, c)
    assert r.versus.margins[0] > 2.0 and r.verdict == "differs"
    steady = frame_by_dataset({("POS", "a"): [0.30, 0.40, 0.20], ("POS", "b"): [0.28, 0.38, 0.18]})
    assert evaluate_claim(steady, c).verdict == "matches"  # paired: the same 2 points on every seed


def test_judge_functions_and_the_ratio_text():
    t = judge_trend({1.0: 1.0, 2.0: 3.0, 3.0: 2.9}, {1.0: 0.05, 2.0: 0.05, 3.0: 0.05}, "rising", 0.5)
    assert t.holds and t.steps_with == 1  # the 0.1 dip is within 2 * sqrt(2) * 0.05
    lv = judge_level((PaperValue(1.0, 10.0), PaperValue(2.0, 40.0)), {1.0: 1.0, 2.0: 1.0}, 0.0)
    assert lv.ratio == pytest.approx(math.sqrt(0.1 * 0.025)) and not lv.holds
    assert [ratio_text(v) for v in (0.05, 1.234, 20.4, math.nan)] == ["x0.05", "x1.2", "x20", "n/a"]


def test_settings_we_chose_print_their_sensitivity_verdicts():
    r = evaluate_claim(curve(AWAD_FIG4), claim(id="fig4-delta100"))
    lines = settings_table([OurSetting("max cluster size", "30", "the paper does not state it", ("fig4-delta100",)),
                            OurSetting("moderate share", "0.5", "not stated")], [r])
    assert lines[0].startswith("**Settings we chose**")
    assert "| max cluster size | 30 | the paper does not state it | fig4-delta100: differs (" in lines[4]
    assert lines[5] == "| moderate share | 0.5 | not stated | - |"


BASE = {"name": "s", "datasets": ["terrovitis2012-fig2"], "grid": {"k": 2, "m": 2, "max_cluster_size": 4},
        "metrics": ["clusters", "tkd"], "plots": [{"id": "fig1", "metric": "clusters", "x": "k"}]}
CLAIM = {"id": "c", "statement": "s", "metric": "clusters", "x": "k", "trend": "rising"}


def test_new_claim_keys_are_parsed():
    spec = parse_sweep({**BASE, "claims": [{**CLAIM, "paper": {2: 46, 5: ">90", "mean": "<60"}, "plot": "fig1",
                                            "step_tolerance": 0.5},
                                           {"id": "d", "statement": "t", "metric": "tkd", "x": "dataset",
                                            "rival": {"method": "apriori"}, "lower": True,
                                            "paper": {"POS": 5}}],
                        "ours": [{"setting": "max cluster size", "value": 30, "why": "not stated",
                                  "sensitivity": ["d"]}, {"setting": "K", "value": True, "why": "w"}]})
    c, d = spec.claims
    assert c.paper == (PaperValue(2.0, 46.0), PaperValue(5.0, 90.0, ">"), PaperValue(None, 60.0, "<"))
    assert c.plot == "fig1" and c.step_tolerance == 0.5
    assert d.lower and d.categorical and d.paper == (PaperValue("POS", 5.0),)
    assert spec.ours == (OurSetting("max cluster size", "30", "not stated", ("d",)), OurSetting("K", "true", "w"))


@pytest.mark.parametrize("bad, message", [
    ({"x": "dataset"}, "claims\\[0\\].trend: a trend needs a numeric x; 'dataset' is a category"),
    ({"paper": {5: "about 90"}}, "expected a number or a bound such as '>90'"),
    ({"paper": {"men": 60}}, "did you mean 'mean'"),
    ({"plot": "fig2"}, "claims\\[0\\].plot: 'fig2' is not allowed \\(did you mean 'fig1'\\?\\)"),
    ({"plot": "fig1", "x": "m"}, "figure 'fig1' plots against k, the claim against m"),
    ({"lower": True}, "'lower: true' needs a 'rival'"),
    ({"trend": "flat", "step_tolerance": 1}, "applies to a 'rising' or 'falling' trend only"),
])
def test_bad_claim_keys_are_one_line(bad, message):
    with pytest.raises(InputError, match=message):
        parse_sweep({**BASE, "claims": [{**CLAIM, **bad}]})


@pytest.mark.parametrize("ours, message", [
    ([{"setting": "a", "value": 1, "wy": "x"}], "ours\\[0\\].wy: unknown key \\(did you mean 'why'\\?\\)"),
    ([{"setting": "a", "value": 1}], "ours\\[0\\]: 'why' is missing"),
    ([{"setting": "a", "value": [1], "why": "w"}], "ours\\[0\\].value: expected a value"),
    ([{"setting": "a", "value": 1, "why": "w", "sensitivity": ["cc"]}],
     "ours\\[0\\].sensitivity\\[0\\]: 'cc' is not allowed \\(did you mean 'c'\\?\\)"),
    ([{"setting": "a", "value": 1, "why": "w"}] * 2, "ours\\[1\\]: 'a' is listed twice"),
    ({"setting": "a"}, "ours: expected a list"),
])
def test_bad_ours_entries_are_one_line(ours, message):
    with pytest.raises(InputError, match=message):
        parse_sweep({**BASE, "claims": [CLAIM], "ours": ours})


def test_paper_pairs_still_work():
    """``paper`` given as (x, value) pairs keeps working (Claim(...) in code)."""
    c = claim(trend="falling", paper=((2, 46.0), (6, 30.0)), x="k")
    assert c.paper == (PaperValue(2, 46.0), PaperValue(6, 30.0))
    r = evaluate_claim(curve({2: 2.61, 4: 1.5, 6: 0.888}, x="k"), c)
    assert r.verdict == "trend only (level x0.041)"  # Awad2019 Fig. 3 BMS1: sqrt(2.61/46 * 0.888/30)
