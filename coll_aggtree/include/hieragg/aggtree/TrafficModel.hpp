// Aggregation traffic of one reduction over a tree placed on a fabric: packets per link
// and direction, load per switch, aggregation entries, and a predicted time.
//
// Reduction phase only (every vertex sends one packet to its tree parent); a broadcast
// is the mirror image (swap the directions). Routing: type I packets follow
// Fabric::route (destination-based shortest paths); type II packets follow the tree's
// linksToParent. Processes on the same NIC or node exchange packets without links.
//
// Predicted time (critical path, then contention):
//   ready(leaf NIC with m processes) = (m-1)·nic_packet_us  (type II: NIC combines locally)
//   ready(v) = serial processing of its children's packets in arrival order, where child c
//              arrives at ready(c) + links(c→v)·link_latency_us and costs one per-packet
//              time at v (nic_packet_us on a process/NIC, switch_packet_us on a switch);
//   T = ready(root) + (maxLinkPackets - 1)·link_packet_us.
// For a complete tree whose packets arrive together this is the paper's
// r·l + h·k·(θ + S·β + S*·γ); the last term charges the most loaded link's queue.
#pragma once
#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/Tree.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"

#include <vector>

namespace hieragg::aggtree {

struct TrafficTimeParameters {
    double link_latency_us = 0.28;   // l: one link hop [µs]
    double nic_packet_us = 0.01;     // θ + S·β + S*·γ on a process/NIC, per packet [µs]
    double switch_packet_us = 0.005; // the same on an aggregating switch [µs]
    double link_packet_us = 0.0008;  // serialisation of one packet on a link [µs] (8 B at 10 GB/s)
};

struct TrafficReport {
    std::vector<long long> forward;     // per link id: packets a -> b
    std::vector<long long> backward;    // per link id: packets b -> a
    std::vector<long long> switchLoad;  // per fabric vertex: packets entering it (switches only)
    int entriesUsed = 0;                // aggregation entries (switches of a type II tree)
    int heightEdges = 0;                // tree height
    int radiusLinks = 0;                // most links from a leaf to the root along the tree
    int maxChildren = 0;
    long long maxLinkPackets = 0;       // over links and directions
    long long totalLinkPackets = 0;     // sum over links and directions
    double predictedUs = 0.0;

    // Packets crossing link `id` from vertex `from` to its other end.
    long long packets(const Fabric& fabric, int id, int from) const {
        return fabric.link(id).a == from ? forward.at(id) : backward.at(id);
    }
};

// Type I: tree vertex r is process r, placed on placement.nicOfRank[r].
TrafficReport typeOneTraffic(const Fabric& fabric, const Tree& tree, const ProcessPlacement& placement,
                             const TrafficTimeParameters& params = {});

// Type II: `processesPerNic` (indexed by fabric vertex, may be empty = 1 each) only
// affects the NICs' local combining time.
TrafficReport typeTwoTraffic(const Fabric& fabric, const TypeTwoTree& tree,
                             const std::vector<int>& processesPerNic = {}, const TrafficTimeParameters& params = {});

}  // namespace hieragg::aggtree
