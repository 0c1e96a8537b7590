"""The in-memory ledger kernel: what filters, accumulators and odometers share.

A :class:`Ledger` says which spends it takes (a query on the lattice of
:mod:`adaptive_dp.guarantees.lattice`) and what each adds to its running sums, exact
(:class:`Tally`) and float rounded up (:class:`FastTally`, one session or one entry per
path, validated like the exact path). A filter is a predicate on the sums, an accumulator
a reading of them and an odometer a boundary of them (docs/design.md, the kernel).
"""

from adaptive_dp.ledger.base import Ledger
from adaptive_dp.ledger.tally import FastTally, Sums, Tally, TallyView

__all__ = ["FastTally", "Ledger", "Sums", "Tally", "TallyView"]
