// Cost model of tree aggregation (Chen et al. 2024, SPEC 3.2):
//
//   T_aggregate = r·l + h·k·(θ + S·β + S*·γ)
//
// r = radius (links from the farthest leaf to the root along the tree), h = height
// (tree edges), k = children per aggregating node, S = packet bytes, S* = packet
// elements that are reduced. For a type I tree (every vertex a process) with δ
// links between any two processes, h ≈ log_k P and r ≈ δ·log_k P, hence
//
//   F(k) = (a + b·k)·log_k P,  a = δ·l,  b = θ + S·β + S*·γ,
//
// minimised where k·(ln k − 1) = a/b. All times are in microseconds.
#pragma once
#include <string>

namespace hieragg::aggtree {

// Work one aggregating node spends on one incoming packet.
struct NodeCost {
    double theta_us = 0.0;              // θ: matching/processing per packet [µs]
    double beta_us_per_byte = 0.0;      // β: store-and-forward per byte [µs/byte]
    double gamma_us_per_element = 0.0;  // γ: reduction per element [µs/element]

    // θ + S·β + S*·γ for a packet of `bytes` bytes of which `elements` are reduced [µs].
    double perPacketUs(double bytes, double elements) const {
        return theta_us + bytes * beta_us_per_byte + elements * gamma_us_per_element;
    }
};

// Model parameters. Defaults are illustrative, chosen so that an 8-byte broadcast
// gives the paper's a = 1.12 µs and b = 0.01 µs (δ = 4 links of 0.28 µs; θ + 8·β = 0.01 µs);
// real values come from MCA parameters or a calibration run.
struct CostParameters {
    double l_us = 0.28;         // l: latency of one link hop [µs]
    double delta_links = 4.0;   // δ: links on the unicast path between two processes (type I) [links]
    NodeCost process{0.008, 0.00025, 0.0005};  // type I: aggregation on a process / NIC
    // Type II assumptions (the paper's eq. 7/8 are lost from the extracted copy):
    // the tree is a d-ary tree of switches with d = min(switch_degree, P), its height is
    // ⌈log_d P⌉ switch levels, its radius is δ/2 links (NIC up to the top switch on the
    // unicast path), and every switch spends `sw` per packet on each of its d children.
    NodeCost sw{0.005, 0.0002, 0.002};  // type II: aggregation in a switch
    int switch_degree = 32;             // K: largest number of children per switch [children]

    double a() const { return delta_links * l_us; }  // a = δ·l [µs]
};

// T_aggregate = r·l + h·k·perPacket [µs]; r in links, h in tree edges, k children per node.
double aggregationTimeUs(double radius_links, double height, double k, double perPacketUs, double l_us);

// F(k) = (a + b·k)·log_k P [µs]. Requires k > 1, P ≥ 1.
double typeOneModelUs(double k, double a, double b, double P);

// Real root of k·(ln k − 1) = a/b, by bisection (the left side increases for k > 1).
double optimalRealK(double a, double b);

// The integer k in [2, max(2, P)] minimising F: the better of the real optimum's neighbours.
int optimalIntegerK(double a, double b, double P);

// Integer widths whose F is within ε of F(k*). F is unimodal so the set is the range [k_min, k_max].
struct WidthBand {
    int k_star = 2;
    double f_star_us = 0.0;
    int k_min = 2;
    int k_max = 2;
};
WidthBand widthBand(double a, double b, double P, double epsilon_us);

enum class CollectiveOp { Barrier, Bcast, Reduce, Allreduce };
const char* collectiveOpName(CollectiveOp op);
// Parses "barrier", "bcast", "reduce", "allreduce"; throws std::invalid_argument.
CollectiveOp parseCollectiveOp(const std::string& name);

// Packet of one operation: barrier and bcast carry data but reduce nothing (S* = 0);
// reduce/allreduce reduce every element. A barrier packet is modelled as 8 bytes (a header).
struct Packet {
    double bytes = 0.0;
    double elements = 0.0;
};
Packet packetFor(CollectiveOp op, double messageBytes, int elementBytes);

// Predicted type I time for the best integer k, and type II time under the assumptions above.
double typeOneTimeUs(int P, int k, const Packet& packet, const CostParameters& params);
double typeTwoTimeUs(int P, const Packet& packet, const CostParameters& params);

enum class TreeType { TypeOne, TypeTwo };

struct TreeRecommendation {
    TreeType type = TreeType::TypeOne;
    int k = 2;                // type I: tree width; type II: switch degree used by the model
    WidthBand band;           // type I width band (ε given to recommendTree)
    double type_one_us = 0.0;
    double type_two_us = 0.0; // 0 when switches cannot aggregate
    std::string reason;
};

// Chooses type I or II and k for P processes. Type II is only considered when switches can
// aggregate (and have free entries); it wins when its predicted time is lower.
TreeRecommendation recommendTree(int P, CollectiveOp op, double messageBytes, int elementBytes,
                                 const CostParameters& params, bool switchesCanAggregate,
                                 double epsilon_us = 0.1);

}  // namespace hieragg::aggtree
