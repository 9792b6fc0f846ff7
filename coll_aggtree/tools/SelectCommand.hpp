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
    // A link as the component's setup measured it (its verbose line "hieragg: <link>: ..."),
    // applied like the measurement (LinkCalibration.hpp) after --params. alpha [us] and
    // beta [ns/B] both > 0, else not measured; exchange round [us], rendezvous [us] at >=
    // eager [B], burst [us] per further message, noise (fraction; the chooser's band): 0 not
    // measured.
    struct MeasuredLinkOptions {
        double alphaUs = 0, betaNs = 0, exchangeUs = 0, rendezvousUs = 0, eagerBytes = 0, burstUs = 0, noise = 0, duplexNs = 0;
    };
    MeasuredLinkOptions network, node;
    // Cores of the node (0: unknown): more ranks per node than cores raise the node link's
    // alpha and bound the flat plans, as the component does (OversubscribedNode.hpp).
    int nodeCores = 0;
    size_t segmentBytes = 65536;   // coll_hieragg_segment_size
    bool commutative = true;
    int switchEntries = 16;        // coll_hieragg_switch_entries (type II trees)
    int switchDegree = 32;         // coll_hieragg_switch_degree
};

int runSelect(const SelectOptions& o);

}  // namespace hieragg::tools
