// How the per-edge tree model prices one hop, parent to child: the one place that says
// where a rendezvous goes. A parent sends to its children one after the other; each child
// occupies the parent's link for `occupancy` (start-up, bytes, combine), so the j-th child
// (j = 1, 2, ..) waits for j of them. A message past the eager limit also waits for the
// handshake (the rendezvous): on the critical path of every dependent hop, but the parent
// posts its children's sends at once, so their handshakes overlap each other and the
// siblings' bytes: it is paid once per hop, not once per sibling. The j-th child arrives
//     alpha + handshake + j x occupancy
// after its parent. handshake 0 (no rendezvous measured, the defaults) gives alpha + j x b,
// the same double as without the term.
#pragma once

namespace hieragg::aggtree {

struct HopPrice {
    double alpha = 0;      // a message's latency across the link [us]
    double handshake = 0;  // the rendezvous past the eager limit, once per hop [us]
    double occupancy = 0;  // the link time per child, without the handshake [us]

    // The j-th child's arrival (j >= 1) for a parent that arrived at `parent`, summed left
    // to right (a handshake of 0 adds nothing to the double).
    double arrivalUs(double parent, double j) const { return parent + alpha + handshake + j * occupancy; }
    // One message alone on the hop: alpha + handshake + occupancy.
    double messageUs() const { return arrivalUs(0.0, 1.0); }
};

}  // namespace hieragg::aggtree
