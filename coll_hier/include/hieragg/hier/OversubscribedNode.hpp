// More ranks on a node than cores (e.g. 8 ranks on 2 cores, or a shared test
// machine): a message between two ranks of the node waits until the receiver is
// scheduled again, so each dependent hand-off inside the node costs more than the
// shared-memory latency alone. The node's start-up alpha grows with the ranks per
// core; the per-byte terms do not (a copy runs at memory speed once it runs).
#pragma once

#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier {

// Extra start-up per hand-off for each rank beyond one per core [µs]. Measured with
// hieragg-calibrate (ping-pong of 8 B between two ranks while the others wait with
// mpi_yield_when_idle) on a 2-core VM, 2026-11-22: 0.31-0.35 µs with 2 ranks, 2.0-3.0
// with 4, 5.7-6.8 with 8, i.e. about 2 µs per extra rank per core.
constexpr double kNodeHandoffUs = 2.0;

// alpha + kNodeHandoffUs * (ranks / cores - 1) when ranks > cores > 0, else alpha.
double oversubscribedAlphaUs(double alphaUs, int ranks, int cores);

// Applies it to the links inside a node (numa and node classes) unless the user set that
// class's alpha (`alphaSet[link]`, HIERAGG_COST_SET_ALPHA bits). Returns whether it changed
// anything.
bool applyNodeOversubscription(CostParams& p, int ranks, int cores, const int (&alphaSet)[HIERAGG_LINK_CLASS_COUNT]);

}  // namespace hieragg::hier
