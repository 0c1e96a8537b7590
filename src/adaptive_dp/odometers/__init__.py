"""Privacy-loss accumulators (H23 / Lécuyer) and time-uniform odometers (W23, RRUV16), two
different protocols (docs/design.md, vocabulary)."""

from adaptive_dp.odometers.accumulators import (
    EXHAUSTED,
    Accumulator,
    AccumulatorState,
    ApproxDPAccumulator,
    BasicAccumulator,
    Exhausted,
    GDPAccumulator,
    RDPAccumulator,
    RDPCurveAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.odometers.w23 import (
    FastOdometerState,
    Odometer,
    OdometerState,
    W23MixtureOdometer,
    W23StitchedOdometer,
    mixture_rho_for,
)

__all__ = [
    "EXHAUSTED",
    "Accumulator",
    "AccumulatorState",
    "ApproxDPAccumulator",
    "BasicAccumulator",
    "Exhausted",
    "FastOdometerState",
    "GDPAccumulator",
    "Odometer",
    "OdometerState",
    "RDPAccumulator",
    "RDPCurveAccumulator",
    "RRUV16Odometer",
    "W23MixtureOdometer",
    "W23StitchedOdometer",
    "ZCDPAccumulator",
    "mixture_rho_for",
]
