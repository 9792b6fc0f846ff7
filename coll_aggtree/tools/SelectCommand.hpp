// hieragg-plan select: the plan the component would choose for one call
// (Selection.hpp) on a synthetic communicator, with the same cost parameters
// (a file of coll_hieragg_cost_* lines, e.g. hieragg-calibrate's output), and
// the tree every rank would send along.
#pragma once
#include <string>

namespace hieragg::tools {

struct SelectOptions {
    std::string coll = "bcast";
    int processes = 8;
    int ranksPerNode = 4;          // synthetic host names: rank / ranksPerNode
    std::string split = "node";    // coll_hieragg_split
    double bytes = 8;
    int elementBytes = 8;
    int root = 0;
    std::string algorithm = "auto";
    std::string params;            // file of MCA lines
    // The network as the component's setup measured it (alpha µs, beta ns/B; <= 0: not
    // measured), applied like the measurement (LinkCalibration.hpp: the burst cost grows too).
    double measuredAlphaUs = 0, measuredBetaNs = 0;
    double measuredExchangeUs = 0;  // one exchange round as measured at setup (<= 0: not measured)
    // The rest of the setup's verbose line: rendezvous [us] at >= eager [B], burst [us],
    // noise (fraction; the chooser's band). 0: not measured.
    double measuredRendezvousUs = 0, measuredEagerBytes = 0, measuredBurstUs = 0, measuredNoise = 0;
    size_t segmentBytes = 65536;   // coll_hieragg_segment_size
    bool commutative = true;
    int switchEntries = 16;        // coll_hieragg_switch_entries (type II trees)
    int switchDegree = 32;         // coll_hieragg_switch_degree
};

int runSelect(const SelectOptions& o);

}  // namespace hieragg::tools
