"""E-values: backward martingales (R23-Lem6.1), their products across adaptively chosen
mechanisms (R23-Eq2), time-uniform boundaries (Ville, normal mixture, stitching) and the
ex-post functions built on them (R23-Thm5, the single-BM W22 form)."""
