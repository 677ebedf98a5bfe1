import xml.etree.ElementTree as ET

from leaderboard.core.svg import Point, Series, grouped_bars, scatter_log_x


def test_grouped_bars_is_valid_svg_with_escaped_labels_and_gaps_for_missing():
    body = grouped_bars(["BA", "<b>"], [Series("<script>x</script>", [10.0, None]), Series("m2", [5.0, 7.0])],
                        title="t & u", y_max=100)
    root = ET.fromstring(body)
    assert "<script>" not in body
    rects = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{http://www.w3.org/2000/svg}title") is not None]
    assert len(rects) == 3  # the missing value draws no bar


def test_bar_height_is_proportional_to_value():
    body = grouped_bars(["A"], [Series("m", [50.0])], title="t", y_max=100, height=360)
    root = ET.fromstring(body)
    bar = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{http://www.w3.org/2000/svg}title") is not None][0]
    plot_h = 360 - 36 - 78
    assert abs(float(bar.get("height")) - plot_h / 2) < 0.2


def test_scatter_places_larger_models_further_right_and_handles_no_points():
    body = scatter_log_x([Point("small", 1.0, 10.0), Point("big", 100.0, 20.0)], title="s")
    root = ET.fromstring(body)
    circles = list(root.iter("{http://www.w3.org/2000/svg}circle"))
    assert float(circles[0].get("cx")) < float(circles[1].get("cx"))
    assert float(circles[0].get("cy")) > float(circles[1].get("cy"))  # lower score is lower on screen
    empty = scatter_log_x([], title="none")
    ET.fromstring(empty)
    assert "No open models" in empty


SVG = "{http://www.w3.org/2000/svg}"


def _bars(root):
    return [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]


def test_each_metric_gets_its_own_axis_so_ratios_near_one_are_visible():
    from leaderboard.core.svg import metric_panels

    body = metric_panels(["SR", "VSPS", "GVPE"], [Series("a", [45.0, 0.9, 1.2], href="/models/a/"),
                                                  Series("b", [30.0, 0.5, None])], title="VGE", panel_h=150)
    root = ET.fromstring(body)
    bars = {b.find(f"{SVG}title").text: float(b.get("height")) for b in _bars(root)}
    plot_h = 150 - 24
    assert abs(bars["a · SR: 45"] - plot_h * 45 / 50) < 0.2  # SR on 0-50
    assert abs(bars["a · VSPS: 0.9"] - plot_h * 0.9) < 0.2  # VSPS on 0-1, not 0-100
    assert abs(bars["a · GVPE: 1.2"] - plot_h * 1.2 / 2) < 0.2  # GVPE on 0-2
    assert len(bars) == 5  # b has no GVPE: no bar, not a zero
    # Axis ticks of each panel: 0-1 for VSPS is labelled, not only 0-100.
    ticks = [t.text for t in root.iter(f"{SVG}text")]
    assert "0.5" in ticks and "25" in ticks and "100" not in ticks
    links = [a.get("href") for a in root.iter(f"{SVG}a")]
    assert "/models/a/" in links and all(a.get("target") == "_top" for a in root.iter(f"{SVG}a"))


def test_scatter_labels_never_overlap_and_points_link_with_hover_titles():
    from leaderboard.core.svg import label_box

    # Twelve models of nearly the same size and score: the piled-up case.
    points = [Point(f"Model-{i}-Instruct", 7.0 + i * 0.05, 50.0 + (i % 3) * 0.2, "open-source", href=f"/models/m{i}/")
              for i in range(12)]
    body = scatter_log_x(points, title="s")
    root = ET.fromstring(body)
    labels = [t for t in root.iter(f"{SVG}text") if t.get("font-size") == "10" and t.text and t.text.startswith("Model-")]
    boxes = [label_box(float(t.get("x")), float(t.get("y")), t.text, t.get("text-anchor")) for t in labels]
    assert len(boxes) >= 4  # a crowd still gets some labels
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    anchors = list(root.iter(f"{SVG}a"))
    assert [a.get("href") for a in anchors] == [f"/models/m{i}/" for i in range(12)]
    for a in anchors:  # every point, labelled or not, names itself on hover
        circle = a.find(f"{SVG}circle")
        assert circle.find(f"{SVG}title").text.startswith("Model-")
    # Apart, every label fits.
    apart = scatter_log_x([Point("a", 1.0, 10.0), Point("b", 100.0, 90.0)], title="s")
    assert len([t for t in ET.fromstring(apart).iter(f"{SVG}text") if t.get("font-size") == "10"]) == 2
