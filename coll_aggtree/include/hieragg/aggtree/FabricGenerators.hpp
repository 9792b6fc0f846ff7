// Generators of the fabrics used by the paper's experiments and by tests.
//
// Common conventions (see docs/aggtree-fabric.md):
// - NICs are numbered leaf by leaf in the order of fabric.nics(); consecutive
//   `nicsPerNode` NICs form one compute node, so placeBlock(fabric, P) puts rank r
//   on NIC r, 2 ranks per node and 16 per leaf for the paper's supernode.
// - Switch levels: 0 = leaf, 1 = spine / aggregation, 2 = top.
// - Names: leaves "leaf<i>", spines "spine<i>", NICs "nic<i>"; the supernode
//   fabric prefixes "sn<s>." and names top switches "top.p<plane>.t<i>".
#pragma once
#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/SlurmTopology.hpp"

namespace hieragg::aggtree {

// k-ary n-tree (Petrini & Vanneschi), the standard n-level fat tree: k^n NICs,
// n levels of k^(n-1) switches; switch (l, w) links to (l+1, w') when w and w'
// (base-k words of n-1 digits) differ at most in digit l. Leaf w holds NICs
// w·k .. w·k+k-1. Every pair of leaves has full bisection bandwidth.
Fabric kAryNTree(int k, int n, int nicsPerNode = 1);

// Two-level fat tree: every leaf has `nicsPerLeaf` NICs and one link to every spine.
Fabric twoLevelFatTree(int leaves, int nicsPerLeaf, int spines, int nicsPerNode = 1);

// Two-level pruned fat tree (the paper's fig. 14): every leaf has `nicsPerLeaf` NICs
// and a single uplink to one core switch, so all traffic leaving a leaf shares that link.
Fabric prunedTwoLevelFatTree(int leaves, int nicsPerLeaf, int nicsPerNode = 1);

// The paper's supernode (section 6): 256 nodes with 2 ports each, 32 leaf switches with
// 16 NIC ports, 16 spines, 40-port switches; every leaf links to every spine.
// Several supernodes are joined by a top layer arranged in planes: spine j of every
// supernode links to each of the `topSwitchesPerPlane` top switches of plane j (using
// the spine's remaining ports). Inside a supernode two NICs are at most 4 links
// apart, across supernodes 6. The top layer is our assumption (the paper does not
// describe it); its switches need `supernodes` ports.
struct SupernodeFabricSpec {
    int supernodes = 1;
    int leavesPerSupernode = 32;
    int nicsPerLeaf = 16;
    int spinesPerSupernode = 16;
    int nicsPerNode = 2;
    int topSwitchesPerPlane = 8;  // 40 ports - 32 leaf links on each spine
    int switchPorts = 40;         // checked for leaves and spines
};
Fabric supernodeFabric(const SupernodeFabricSpec& spec);

// A fabric from a Slurm topology: one switch per SwitchName (same order), `nicsPerNode`
// NICs per listed node (named "<node>" or "<node>.p<i>"), links child switch - parent.
// Switch level = 0 for switches without child switches, else 1 + highest child level.
Fabric fabricFromSlurm(const SlurmTopology& topology, int nicsPerNode = 1);

}  // namespace hieragg::aggtree
