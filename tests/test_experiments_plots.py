"""Honest figures: intervals inside the metric's range, no band where the runs cannot differ,
categories not joined by lines (issue: figures)."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.report.plots import _draw, aggregate, bootstrap_interval, figure
from experiments.sweep.grid import RUN_PARAMS
from experiments.sweep.schema import PlotSpec


def frame(values_by_x, metric="pem", method="disassociation"):
    rows = []
    for x, values in values_by_x.items():
        for seed, v in enumerate(values):
            row = {c: None for c in RUN_PARAMS}
            row.update({"dataset": "toy", "k": 3, "m": 2, "max_cluster_size": x, "seed": seed, "attack": "cover",
                        "method": method, "chunks": "", "metric": metric, "value": v, "status": "ok"})
            rows.append(row)
    return pd.DataFrame(rows)


PLOT = PlotSpec("pem_vs_delta", ("pem",), "max_cluster_size", ("method",))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=6))
def test_interval_of_a_fraction_stays_inside_0_and_100_percent(values):
    [point] = aggregate(frame({10: values}), PLOT)[0]
    assert 0.0 <= point.low <= point.mean <= point.high <= 100.0
    assert point.low >= 100 * min(values) - 1e-9 and point.high <= 100 * max(values) + 1e-9


def test_a_column_varying_inside_a_point_is_named_as_averaged_over():
    """k takes two values inside each plotted point (x = max cluster size): the note names it with its count of
    values; m and the dataset, constant, and None columns (records, horpart, ...) are not named."""
    df = frame({10: [0.1, 0.2, 0.3, 0.4], 20: [0.5, 0.6]})
    df.loc[df.index % 2 == 1, "k"] = 4
    points, averaged, datasets = aggregate(df, PLOT)
    assert averaged == ["k (2 values)"] and datasets == ["toy"] and [p.n for p in points] == [4, 2]
    df["k"] = 3
    assert aggregate(df, PLOT)[1] == []
    df.loc[0, "records"] = 1000  # one run of a point with a size, the others none: two values (None counts)
    assert aggregate(df, PLOT)[1] == ["records (2 values)"]


def test_student_t_would_have_left_the_range_bootstrap_does_not():
    """Three runs 0, 0, 0.3: Student's t gives [-0.26, 0.46] for a share; the bootstrap stays in [0, 0.3]."""
    low, high = bootstrap_interval(np.array([0.0, 0.0, 0.3]))
    assert 0.0 <= low < high <= 0.3


def test_identical_runs_have_no_interval():
    [point] = aggregate(frame({10: [0.25, 0.25, 0.25]}), PLOT)[0]
    assert point.low == point.mean == point.high and not point.has_interval


def _svg(tmp_path, values_by_x, plot=PLOT):
    points = aggregate(frame(values_by_x), plot)[0]
    [_png, svg] = _draw(plot, points, "a note " * 60, tmp_path)
    return svg.read_text()


BAND = "fill-opacity: 0.15"


def test_no_band_is_drawn_where_runs_agree(tmp_path):
    assert BAND not in _svg(tmp_path, {10: [0.2, 0.2, 0.2], 20: [0.4, 0.4, 0.4]})


def test_band_is_drawn_where_runs_differ(tmp_path):
    assert BAND in _svg(tmp_path, {10: [0.1, 0.2, 0.3], 20: [0.3, 0.4, 0.5]})


def test_all_zero_metric_sits_on_a_full_axis():
    """An all-zero line is drawn on 0..100% instead of a +-0.04 axis."""
    import matplotlib.pyplot as plt

    fig = figure(PLOT, aggregate(frame({10: [0.0, 0.0], 20: [0.0, 0.0]}), PLOT)[0], "")
    assert fig.axes[0].get_ylim() == (0.0, 100.0)
    plt.close(fig)


def test_categories_are_not_joined_by_lines():
    import matplotlib.pyplot as plt

    plot = PlotSpec("pem_by_method", ("pem",), "method", ())
    df = pd.concat([frame({10: [0.1, 0.2]}, method="a"), frame({10: [0.3, 0.5]}, method="b")])
    fig = figure(plot, aggregate(df, plot)[0], "")
    assert all(line.get_linestyle() in ("None", "none", "") for line in fig.axes[0].get_lines()
               if len(line.get_xdata()) > 1)
    plt.close(fig)


def test_note_is_wrapped_inside_the_figure_width():
    import matplotlib.pyplot as plt

    fig = figure(PLOT, aggregate(frame({10: [0.1, 0.2]}), PLOT)[0], "word " * 200)
    fig.canvas.draw()
    [note] = fig.texts
    assert note.get_window_extent().x1 <= fig.bbox.x1
    plt.close(fig)


def test_categories_keep_the_order_the_sweep_lists():
    import matplotlib.pyplot as plt

    listed = ("domain 1k", "domain 2.5k", "domain 10k")
    plot = PlotSpec("by_domain", ("pem",), "dataset", (), where=(("dataset", listed),))
    frames = []
    for name in ("domain 10k", "domain 1k", "domain 2.5k"):
        f = frame({10: [0.1, 0.2]})
        f["dataset"] = name
        frames.append(f)
    fig = figure(plot, aggregate(pd.concat(frames), plot)[0], "")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["domain 1k", "domain 2.5k", "domain 10k"]
    plt.close(fig)
