// Reduce_scatter(_block) by a tree: the trees price the reduce only; rank 0 then sends every
// other rank its block. What that scatter adds to the tree plan when the chooser weighs it
// against the rows without a root (TreeTerms::ScatterAfter; nothing for the others).
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

// `treeUs`: the tree plan's time; `links`: the link class of every stage ({kLinkNode} when
// not decomposed); `bytes`: modelBytes(c). Returns the tree plan's time with the scatter.
double withScatterAfterReduceUs(double treeUs, const CollCall& c, const CostParams& p, const std::vector<int>& links,
                                double bytes);

}  // namespace hieragg::hier::model
