"""Figures show the paper's numbers, signed values below 0, small multiples and what a band spans (issue 24)."""

import pandas as pd
import pytest

from corpora.common.errors import InputError
from experiments.report.plots import _draw, aggregate_panels, figure
from experiments.report.series import band_note, paper_marks
from experiments.sweep.grid import RUN_PARAMS
from experiments.sweep.schema import parse_sweep
from experiments.sweep.spec import Claim, Panel, PaperValue, PlotSpec


def frame(values_by_point, metric="pem"):
    """(method, x) -> runs (one per seed)."""
    rows = []
    for (method, x), values in values_by_point.items():
        for seed, v in enumerate(values):
            row = {c: None for c in RUN_PARAMS}
            row.update({"dataset": "toy", "k": 3, "m": 2, "max_cluster_size": x, "seed": seed, "attack": "cover",
                        "method": method, "chunks": "", "metric": metric, "value": v, "status": "ok"})
            rows.append(row)
    return pd.DataFrame(rows)


PLOT = PlotSpec("fig4", ("pem",), "max_cluster_size", ("method",))
FIG4 = Claim("fig4-bms1", "Fig. 4: PEM rises with delta (BMS1)", "pem", "max_cluster_size",
             (("method", ("strong",)),), paper=((10, 17.0), (60, 52.0)), trend="rising", plot="fig4")


def test_the_papers_values_are_marked_and_in_the_y_range(tmp_path):
    df = frame({("strong", 10): [0.010, 0.011], ("strong", 60): [0.020, 0.022]})
    points = aggregate_panels(df, PLOT)[0]
    marks = paper_marks([FIG4], PLOT)
    assert [(m.at, m.value, m.line) for m in marks] == [(10, 17.0, "strong"), (60, 52.0, "strong")]
    fig = figure(PLOT, points, "", marks)
    assert fig.axes[0].get_ylim()[1] >= 52.0  # ours is 1-2%: the axis reaches the paper's 52%
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "paper: Fig. 4: PEM rises with delta (BMS1)" in labels
    import matplotlib.pyplot as plt

    plt.close(fig)
    [_png, svg] = _draw(PLOT, points, "", tmp_path, marks)
    assert "paper: Fig. 4: PEM rises with delta (BMS1)" in svg.read_text()
    unmarked = _draw(PLOT, points, "", tmp_path / "plain")[1].read_text()
    assert "paper: Fig. 4" not in unmarked


def test_bounds_and_means_are_drawn():
    bound = Claim("b", "Fig. 5.1: over 90%", "pem", "max_cluster_size", paper=(PaperValue(60, 90.0, ">"),),
                  plot="fig4")
    mean = Claim("m", "about 60% over the swept delta", "pem", "max_cluster_size",
                 paper=(PaperValue(None, 60.0),), plot="fig4")
    df = frame({("strong", 10): [0.5], ("strong", 60): [0.95]})
    fig = figure(PLOT, aggregate_panels(df, PLOT)[0], "", paper_marks([bound, mean], PLOT))
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert ">90" in texts and "mean 60" in texts
    assert {"paper: Fig. 5.1: over 90%", "paper: about 60% over the swept delta"} <= \
        set(ax.get_legend_handles_labels()[1])
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_signed_values_go_below_zero():
    """A signed RAE is negative where the reconstruction underestimates: the axis must not start at 0."""
    plot = PlotSpec("rae", ("pem",), "max_cluster_size", ("method",))
    df = frame({("a", 10): [-0.3, -0.25], ("a", 20): [-0.1, -0.12]})
    fig = figure(plot, aggregate_panels(df, plot)[0], "")
    low, high = fig.axes[0].get_ylim()
    assert low <= -30.0 and high >= -10.0
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_panels_are_small_multiples(tmp_path):
    methods = [f"m{i}" for i in range(9)] + ["oracle"]
    df = frame({(m, x): [0.1 * (i % 4) + 0.01 * x, 0.1 * (i % 4) + 0.01 * x + 0.01]
                for i, m in enumerate(methods) for x in (2, 3)})
    plot = PlotSpec("diff", ("pem",), "max_cluster_size", ("method",),
                    panels=(Panel("first", (("method", tuple(methods[:5])),)),
                            Panel("second", (("method", tuple(methods[5:9])),)),
                            Panel("oracle", (("method", ("oracle",)),))), sharey=False)
    points = aggregate_panels(df, plot)[0]
    assert sorted({(p.panel, p.group) for p in points})[:2] == [(0, "m0"), (0, "m1")]
    assert {p.group for p in points if p.panel == 2} == {"oracle"}
    fig = figure(plot, points, "a note")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["first", "second", "oracle"]
    assert [len(ax.get_lines()) for ax in visible] == [5, 4, 1]
    import matplotlib.pyplot as plt

    plt.close(fig)
    [_png, svg] = _draw(plot, points, "note", tmp_path)
    assert svg.stat().st_size > 0


def test_more_than_six_listed_lines_are_refused():
    base = {"name": "s", "datasets": ["terrovitis2012-fig2"], "grid": {"k": 2, "m": 2, "max_cluster_size": 4},
            "metrics": ["clusters"]}
    seven = [f"m{i}" for i in range(7)]
    plot = {"id": "f", "metric": "clusters", "x": "k", "where": {"method": seven}}
    with pytest.raises(InputError, match="plots\\[0\\]: this panel draws 7 lines, at most 6: split it with 'panels'"):
        parse_sweep({**base, "plots": [plot]})
    split = {**plot, "panels": [{"title": "a", "where": {"method": seven[:4]}}, {"where": {"method": seven[4:]}}],
             "sharey": False}
    spec = parse_sweep({**base, "plots": [split]})
    assert [p.title for p in spec.plots[0].panels] == ["a", "method=m4/m5/m6"] and not spec.plots[0].sharey
    for bad, message in (({"sharey": False}, "plots\\[0\\].sharey: applies to a figure with 'panels' only"),
                         ({"panels": [{"titel": "a", "where": {}}]}, "did you mean 'title'"),
                         ({"panels": [{"title": "a"}]}, "'where' is missing"),
                         ({"panels": []}, "expected a list of 1-12 panels")):
        with pytest.raises(InputError, match=message):
            parse_sweep({**base, "plots": [{"id": "f", "metric": "clusters", "x": "k", **bad}]})


def test_the_band_says_what_the_seeds_vary():
    df = frame({("strong", 10): [0.1, 0.2], ("strong", 20): [0.3, 0.4]})
    assert band_note(df, PLOT) == "band: spread over seeds"
    release = frame({("", 10): [7.0, 7.0], ("", 20): [9.0, 9.0]}, metric="release_id")
    release["attack"] = ""
    same = pd.concat([df, release])
    assert band_note(same, PLOT) == ("band: spread over seeds of the sampling after the release only "
                                     "(attackers, reconstructions; the same release for every seed)")
    release.loc[release.index[1], "value"] = 8.0
    assert band_note(pd.concat([df, release]), PLOT) == "band: spread over seeds (releases differ)"


def test_shared_y_panels_show_every_panels_values():
    # the later panel's 100% must not be clipped by a limit set from the first panel (0.4-0.5)
    df = frame({("a", 2): [0.4, 0.41], ("a", 3): [0.5, 0.52], ("oracle", 2): [1.0, 1.0], ("oracle", 3): [1.0, 1.0]})
    plot = PlotSpec("shared", ("pem",), "max_cluster_size", ("method",),
                    panels=(Panel("attack", (("method", ("a",)),)), Panel("oracle", (("method", ("oracle",)),))))
    fig = figure(plot, aggregate_panels(df, plot)[0], "")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert all(ax.get_ylim()[1] >= 100.0 for ax in visible)
    import matplotlib.pyplot as plt

    plt.close(fig)
