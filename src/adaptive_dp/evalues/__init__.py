"""E-values: backward martingales (R23-Lem6.1), their products across adaptively chosen
mechanisms (R23-Eq2), time-uniform boundaries (Ville, normal mixture, stitching) and the
ex-post functions built on them (R23-Thm5, the single-BM W22 form)."""

from adaptive_dp.evalues.backward import (
    EValueProduct,
    backward_log_martingale,
    backward_martingale,
    round_log_evalue,
)
from adaptive_dp.evalues.boundaries import (
    Boundary,
    HowardStitching,
    NormalMixtureBoundary,
    StitchedBoundary,
    VilleBoundary,
)
from adaptive_dp.evalues.expost import (
    brownian_expost,
    brownian_expost_float,
    single_bm_expost,
    single_bm_expost_float,
    single_bm_expost_linear,
    single_bm_expost_mixture,
)

__all__ = [
    "Boundary",
    "EValueProduct",
    "HowardStitching",
    "NormalMixtureBoundary",
    "StitchedBoundary",
    "VilleBoundary",
    "backward_log_martingale",
    "backward_martingale",
    "brownian_expost",
    "brownian_expost_float",
    "round_log_evalue",
    "single_bm_expost",
    "single_bm_expost_float",
    "single_bm_expost_linear",
    "single_bm_expost_mixture",
]
