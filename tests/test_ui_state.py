"""The Streamlit-facing helpers that hold no widget: turning chart events into paper ids."""

from types import SimpleNamespace

from lib.ui_state import MapSelection, map_selection


def event(points, box=(), lasso=()):
    return SimpleNamespace(selection={"points": points, "box": list(box), "lasso": list(lasso), "point_indices": []})


def test_a_click_opens_one_paper_and_a_lasso_lists_papers():
    assert map_selection(event([{"customdata": "p1", "curve_number": 2}])) == MapSelection("p1", ())
    lasso = event(
        [{"customdata": "p1"}, {"customdata": "p2"}, {"customdata": "p1"}], lasso=[{"x": [0, 1, 1], "y": [0, 0, 1]}]
    )
    assert map_selection(lasso) == MapSelection(None, ("p1", "p2"))  # the highlight layer repeats a paper: counted once
    assert map_selection(event([{"curve_number": 0}], box=[{"x": [0, 1], "y": [0, 1]}])) == MapSelection(
        None, ()
    )  # backdrop points carry no id
    assert map_selection(SimpleNamespace(selection=None)) == MapSelection(None, ()) == map_selection(None)
