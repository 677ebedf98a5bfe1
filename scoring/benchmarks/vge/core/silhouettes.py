"""What makes each of the 26 categories recognisable when drawn from geometry: the body's outline per face and
a few details (a kettle's spout and handle, a microwave's vents, a fan's blade guard, a camera's lens...).

Pure data, read by `render.py`. Coordinates are fractions of the face's body rectangle (0..1 across and down;
values outside reach beyond the body: a spout, bells, a stand). Each detail is `(layer, kind, coords, role)`:
layer `behind` is drawn before the body (parts sticking out), `on` after it and before the controls (which are
always drawn on top, so a detail never hides a control). Kinds: `rect`, `ellipse`, `poly` (a list of points),
`grille` (a rect of n slots: coords + (n,)), `ring` (concentric circles: cx, cy, r). Roles name colours:
`body`, `relief` (a shade of the body that stands out from it), `dark`, `glass`, `metal`, `rubber`.
"""
from __future__ import annotations

from typing import Any

Detail = tuple[str, str, tuple[Any, ...], str]

# The body outline per category: `rounded` (default), `round` (large corner radius), `taper` (narrower at the top).
OUTLINE: dict[str, dict[str, str]] = {
    "ElectricKettle": {"front": "taper", "back": "taper"},
    "Lamp": {"front": "taper", "back": "taper", "left": "taper", "right": "taper"},
    "RiceCooker": {"front": "round", "back": "round", "left": "round", "right": "round", "top": "round"},
    "AirFryer": {"front": "round", "back": "round", "top": "round"},
    "Humidifier": {"front": "round", "back": "round", "top": "round"},
    "Razor": {"front": "round", "back": "round"},
    "ElectricToothbrush": {"front": "round", "back": "round"},
    "CarKey": {"front": "round", "back": "round"},
    "PowerBank": {"front": "round", "back": "round"},
    "Flashlight": {"front": "round", "back": "round"},
    "Lighter": {"front": "round", "back": "round"},
    "MechanicalAlarmClock": {"front": "round", "back": "round"},
}

DETAILS: dict[str, dict[str, list[Detail]]] = {
    "CoffeeMachine": {"front": [
        ("on", "rect", (0.3, 0.45, 0.7, 0.92), "dark"),  # the cup area
        ("on", "rect", (0.44, 0.45, 0.56, 0.53), "metal"),  # the spout
        ("on", "poly", ((0.4, 0.7), (0.6, 0.7), (0.57, 0.9), (0.43, 0.9)), "metal"),  # a cup
    ]},
    "DigitalAlarmClock": {"front": [("on", "rect", (0.08, 0.18, 0.92, 0.82), "dark")],
                          "bottom": [("on", "rect", (0.1, 0.3, 0.2, 0.7), "rubber"), ("on", "rect", (0.8, 0.3, 0.9, 0.7), "rubber")]},
    "Lighter": {"top": [("on", "grille", (0.15, 0.2, 0.85, 0.8, 4), "dark")],
                "front": [("on", "rect", (0.0, 0.0, 1.0, 0.3), "metal"), ("on", "grille", (0.2, 0.06, 0.8, 0.24, 3), "dark")]},
    "Microwave": {"front": [("on", "grille", (0.78, 0.55, 0.95, 0.92, 6), "relief")],
                  "top": [("on", "grille", (0.1, 0.2, 0.4, 0.8, 7), "relief")]},
    "WashingMachine": {"front": [("on", "rect", (0.0, 0.0, 1.0, 0.17), "relief"), ("on", "rect", (0.06, 0.93, 0.94, 0.98), "dark")],
                       "top": [("on", "rect", (0.05, 0.05, 0.95, 0.95), "relief")]},
    "MechanicalAlarmClock": {"front": [
        ("behind", "ellipse", (0.05, -0.2, 0.35, 0.1), "metal"), ("behind", "ellipse", (0.65, -0.2, 0.95, 0.1), "metal"),  # bells
        ("behind", "rect", (0.12, 0.95, 0.2, 1.08), "dark"), ("behind", "rect", (0.8, 0.95, 0.88, 1.08), "dark"),  # feet
        ("on", "ring", (0.5, 0.52, 0.4), "glass"), ("on", "poly", ((0.49, 0.52), (0.51, 0.52), (0.51, 0.22), (0.49, 0.22)), "dark"),
        ("on", "poly", ((0.5, 0.51), (0.5, 0.53), (0.72, 0.6), (0.72, 0.58)), "dark"),
    ]},
    "WeighingScale": {"top": [("on", "rect", (0.06, 0.06, 0.94, 0.94), "glass")],
                      "front": [("behind", "rect", (0.05, 1.0, 0.15, 1.5), "rubber"), ("behind", "rect", (0.85, 1.0, 0.95, 1.5), "rubber")]},
    "Heater": {"front": [("on", "grille", (0.08, 0.08, 0.92, 0.6, 9), "dark")],
               "back": [("on", "grille", (0.08, 0.08, 0.92, 0.9, 12), "relief")]},
    "Lamp": {"front": [
        ("behind", "poly", ((-0.25, -0.02), (1.25, -0.02), (0.85, -0.45), (0.15, -0.45)), "relief"),  # the shade
        ("on", "rect", (0.44, 0.0, 0.56, 0.85), "metal"), ("on", "rect", (0.05, 0.85, 0.95, 1.0), "relief"),  # pole, base
    ]},
    "ElectricKettle": {"front": [
        ("behind", "poly", ((0.08, 0.2), (-0.3, 0.05), (-0.32, 0.12), (0.06, 0.45)), "body"),  # the spout
        ("behind", "poly", ((0.9, 0.15), (1.3, 0.2), (1.3, 0.75), (0.95, 0.8), (0.97, 0.68), (1.18, 0.64), (1.18, 0.3), (0.93, 0.28)), "relief"),
        ("on", "rect", (-0.04, 0.9, 1.04, 1.0), "dark"),  # the base
        ("on", "rect", (0.2, 0.25, 0.26, 0.8), "glass"),  # water window
    ]},
    "ElectricFan": {"front": [
        ("behind", "ellipse", (-0.45, -0.02, 1.45, 0.62), "relief"),  # the blade guard
        ("behind", "ring", (0.5, 0.3, 0.82), "dark"),
        ("behind", "rect", (-0.3, 0.93, 1.3, 1.0), "dark"),  # the foot
    ]},
    "AirFryer": {"front": [("on", "rect", (0.1, 0.55, 0.9, 0.95), "relief"), ("on", "rect", (0.15, 0.05, 0.85, 0.12), "dark")],
                 "top": [("on", "grille", (0.2, 0.7, 0.8, 0.92, 5), "dark")]},
    "Flashlight": {"front": [("on", "ring", (0.5, 0.5, 0.45), "metal"), ("on", "ring", (0.5, 0.5, 0.32), "glass")],
                   "left": [("on", "rect", (0.0, 0.0, 0.25, 1.0), "metal"), ("on", "grille", (0.35, 0.1, 0.95, 0.9, 5), "rubber")]},
    "FilmCamera": {"front": [
        ("on", "rect", (0.0, 0.2, 1.0, 0.3), "rubber"),  # the leatherette band
        ("on", "ring", (0.5, 0.55, 0.38), "dark"), ("on", "ring", (0.5, 0.55, 0.26), "glass"),  # the lens
        ("behind", "poly", ((0.38, 0.02), (0.62, 0.02), (0.57, -0.2), (0.43, -0.2)), "relief"),  # the prism hump
    ]},
    "Razor": {"front": [("behind", "rect", (0.05, -0.2, 0.95, 0.02), "metal"), ("on", "grille", (0.15, -0.17, 0.85, -0.02, 4), "dark")]},
    "DigitalCamera": {"front": [("on", "ring", (0.45, 0.55, 0.4), "dark"), ("on", "ring", (0.45, 0.55, 0.28), "glass"),
                                ("on", "rect", (0.8, 0.12, 0.95, 0.3), "glass")]},
    "HairDryer": {"front": [("on", "ring", (0.5, 0.35, 0.32), "dark"), ("on", "grille", (0.3, 0.2, 0.7, 0.5, 4), "relief")],
                  "left": [("behind", "rect", (0.3, 1.0, 0.7, 1.35), "relief")]},
    "Humidifier": {"top": [("on", "ring", (0.5, 0.5, 0.18), "dark")],
                   "front": [("on", "rect", (0.1, 0.1, 0.9, 0.55), "glass")]},
    "Landline": {"top": [("on", "rect", (0.05, 0.05, 0.95, 0.3), "relief")],
                 "front": [("behind", "poly", ((0.0, 0.0), (1.0, 0.0), (0.92, -0.25), (0.08, -0.25)), "relief")]},
    "PowerBank": {"top": [("on", "rect", (0.2, 0.3, 0.4, 0.7), "dark"), ("on", "rect", (0.6, 0.3, 0.8, 0.7), "dark")]},
    "CarKey": {"front": [("behind", "ring", (0.5, -0.05, 0.12), "metal"), ("on", "rect", (0.1, 0.05, 0.9, 0.18), "relief")]},
    "Vacuum": {"front": [("behind", "rect", (-0.45, 0.9, 1.45, 1.0), "dark"), ("on", "rect", (0.1, 0.02, 0.9, 0.08), "rubber")]},
    "AirPurifier": {"front": [("on", "grille", (0.1, 0.45, 0.9, 0.95, 10), "relief")],
                    "top": [("on", "ring", (0.5, 0.5, 0.4), "dark"), ("on", "ring", (0.5, 0.5, 0.3), "relief")]},
    "RiceCooker": {"front": [("behind", "rect", (-0.1, 0.25, 0.02, 0.4), "dark"), ("behind", "rect", (0.98, 0.25, 1.1, 0.4), "dark"),
                             ("on", "rect", (0.0, 0.0, 1.0, 0.22), "relief")]},
    "ElectricToothbrush": {"front": [("behind", "rect", (0.3, -0.35, 0.7, 0.02), "metal"),
                                     ("behind", "rect", (0.2, -0.45, 0.8, -0.3), "glass")]},
    "ThermometerGun": {"left": [("behind", "poly", ((0.3, 1.0), (0.9, 1.0), (0.95, 1.6), (0.55, 1.6)), "relief")],
                       "front": [("on", "ring", (0.5, 0.3, 0.22), "dark"), ("on", "ring", (0.5, 0.3, 0.12), "glass")]},
}


def details_for(category: str, view: str) -> list[Detail]:
    return DETAILS.get(category, {}).get(view, [])


def outline_for(category: str, view: str) -> str:
    return OUTLINE.get(category, {}).get(view, "rounded")
