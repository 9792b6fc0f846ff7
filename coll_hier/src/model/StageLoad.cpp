#include "model/StageLoad.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/hier/Selection.hpp"
#include "model/SharedCoresModel.hpp"

namespace hieragg::hier::model {

Load stageLoadOf(const CollCall& c, const CostParams& p) {
    Load ld;
    ld.shape = factsOf(c.args.kind).shape;
    // Bcast segments are cut from the packed stream (ranks' datatypes may differ): bytes.
    ld.elemBytes = ld.shape == Shape::Bcast ? 1 : std::max<size_t>(1, c.rtype.size);
    ld.bytes = static_cast<double>(modelBytes(c));
    ld.segmentCap = static_cast<double>(c.segmentBytes);
    if (ld.shape == Shape::Gather) ld.bytes *= c.size;
    ld.pulseBytes = std::min<double>(ld.bytes, std::max<size_t>(c.segmentBytes, 1));
    ld.pulses = ld.bytes > 0 ? std::ceil(ld.bytes / std::max(ld.pulseBytes, 1.0)) : 1;
    if (factsOf(c.args.kind).treeTerms == TreeTerms::SharedCores && !c.inter && crowdedOneNode(c, p))
        ld.sharedCores = p.nodeCores;
    return ld;
}

}  // namespace hieragg::hier::model
