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
