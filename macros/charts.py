"""Chart geometry for the build-time SVG charts: scales, ticks, number labels and marker outlines.

Pure arithmetic, no markup: :mod:`macros.views` turns rows into points with these helpers and the
``results-chart.html`` template draws them. Coordinates are in the SVG's own units (its ``viewBox``), so
the browser scales the whole chart to the width it has.
"""

import math

# Marker outlines centred on (0, 0), placed with a translate; six shapes so engines differ by more than colour.
SHAPES = (
    "M-5 0a5 5 0 1 0 10 0a5 5 0 1 0-10 0Z",  # circle
    "M-4.4-4.4h8.8v8.8h-8.8Z",  # square
    "M0-6L5.6 4H-5.6Z",  # triangle
    "M0-6.2L6.2 0L0 6.2L-6.2 0Z",  # diamond
    "M0 6L5.6-4H-5.6Z",  # triangle pointing down
    "M-1.9-6h3.8v4.1h4.1v3.8h-4.1v4.1h-3.8v-4.1h-4.1v-3.8h4.1Z",  # plus
)
PALETTE_SIZE = 8
LOG_RATIO = 25  # a scatter axis goes logarithmic when its largest value is this many times its smallest


def number(value, digits=None):
    """A figure as text: thousands separators, no trailing ``.0``; ``digits`` rounds (derived values)."""
    if value is None:
        return ""
    if digits is not None:
        value = round(value, digits)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,}"


def tick_label(value):
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


def nice_step(span, target=5):
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag * (1 + 1e-9):
            return m * mag
    return 10 * mag


class Axis:
    """A value range mapped onto ``[start, end]`` SVG units, linear from zero or logarithmic."""

    def __init__(self, values, start, end, log=None, target=5):
        values = [v for v in values if v is not None and v > 0]
        if not values:
            values = [1.0]
        lo, hi = min(values), max(values)
        self.log = (hi / lo > LOG_RATIO) if log is None else log
        self.start, self.end = start, end
        if self.log:
            # bounds and ticks on the 1-2-5 ladder around the data
            ladder = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 2) for m in (1, 2, 5)]
            self.lo = max(v for v in ladder if v <= lo * (1 + 1e-9))
            self.hi = min(v for v in ladder if v >= hi * (1 - 1e-9))
            if self.hi <= self.lo:
                self.hi = min(v for v in ladder if v > self.lo)
            inside = [v for v in ladder if self.lo <= v <= self.hi]
            decades = math.log10(self.hi / self.lo)
            if decades <= 2:
                self.ticks = inside
            else:
                powers = [v for v in inside if round(math.log10(v), 6).is_integer()]
                ends = [v for v in (self.lo, self.hi) if all(abs(math.log10(v / p)) > 0.4 for p in powers)]
                self.ticks = sorted({*powers, *ends})
        else:
            step = nice_step(hi, target)
            top = math.ceil(hi / step * (1 - 1e-9)) * step
            if top < hi * 1.02:  # breathing room above the largest value
                top += step
            self.lo, self.hi = 0.0, top
            self.ticks = [i * step for i in range(int(round(top / step)) + 1)]

    def __call__(self, value):
        if self.log:
            frac = (math.log10(value) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            frac = (value - self.lo) / (self.hi - self.lo)
        return round(self.start + frac * (self.end - self.start), 1)

    def tick_marks(self):
        return [{"pos": self(t), "label": tick_label(t)} for t in self.ticks]


def truncate(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip(" ,·;") + "…"
