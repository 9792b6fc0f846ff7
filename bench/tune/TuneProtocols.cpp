#include "TuneProtocols.hpp"

namespace hieragg::tune {

std::string Protocol::label() const {
    std::string s = algo->name;
    if (k) s += " k=" + std::to_string(k);
    if (segment) s += " seg=" + std::to_string(segment);
    return s;
}

std::vector<Protocol> protocolsOf(hieragg_coll_kind coll) {
    std::vector<Protocol> out;
    for (const hier::AlgorithmInfo* a : hier::algorithmsOf(coll)) {
        const bool chain = (a->traits & hier::kTraitTree) && a->shape == TreeShape::Kind::Chain;
        if (chain) {
            out.push_back({a, 0, 0});
            if (a->tunes & hier::kTunesSegment) out.push_back({a, 0, 16384});
        } else if (a->tunes & hier::kTunesRadix) {
            for (int k : {2, 4}) out.push_back({a, k, 0});
        } else {
            out.push_back({a, 0, 0});
        }
    }
    return out;
}

bool collectiveByName(const std::string& name, hieragg_coll_kind& out) {
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k)
        if (name == hier::collectiveName(static_cast<hieragg_coll_kind>(k))) {
            out = static_cast<hieragg_coll_kind>(k);
            return true;
        }
    return false;
}

}  // namespace hieragg::tune
