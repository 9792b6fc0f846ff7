#include "model/PrefixModel.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier::model {

PrefixGroups prefixGroupsOf(const CollCall& c, const CostParams& p, const std::vector<int>& links) {
    PrefixGroups x;
    const Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1;
    x.G = h.groupCount(top);
    for (int g = 0; g < x.G; ++g) x.M = std::max(x.M, static_cast<int>(h.groupMembers(top, g).size()));
    x.lm = std::ceil(std::log2(x.M)), x.lG = std::ceil(std::log2(std::max(1, x.G)));
    x.in = &p.link[links[links.size() - 2]];
    return x;
}

}  // namespace hieragg::hier::model
