"""The hand-written SVG charts: scales, escaping, and the data the report feeds them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evaluator.present.charts import Series, bar_chart, line_chart, nice_ticks

SVG = "{http://www.w3.org/2000/svg}"


def test_nice_ticks_cover_the_top_with_round_steps():
    assert nice_ticks(3911.0) == [0.0, 1000.0, 2000.0, 3000.0, 4000.0]
    assert nice_ticks(27307, 4) == [0.0, 10000.0, 20000.0, 30000.0]
    assert nice_ticks(0) == [0.0, 1.0]


def test_line_chart_is_valid_svg_with_escaped_labels_and_one_line_per_series():
    svg = line_chart(
        [Series("spec <b>&", [(1, 84.2), (8, 553.0), (64, 2226.0)]), Series("base", [(1, 38.4), (8, 291.0), (64, 1702.0)])],
        title="T",
        x_label="concurrent requests",
        y_label="output tokens/s",
    )
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "spec <b>&" in texts  # parsed back from &lt;b&gt;&amp;: shown as text, never markup
    assert {"1", "8", "64"} <= set(texts)
    assert "output tokens/s" in texts and "concurrent requests" in texts
    lines = list(root.iter(f"{SVG}polyline"))
    assert len(lines) == 2
    # Told apart without colour: one solid, one dashed.
    assert [p.get("stroke-dasharray") for p in lines] == [None, "6 3"]


def test_bar_chart_labels_each_bar_with_its_share():
    root = ET.fromstring(bar_chart([39, 1, 0, 3], title="h", x_label="j", y_label="steps"))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert ["91 %", "2 %", "0 %", "7 %"] == [t for t in texts if t.endswith("%")]
    assert len(list(root.iter(f"{SVG}rect"))) == 4
