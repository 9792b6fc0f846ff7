// Plan::describe (Selection.hpp): one line per stage of a plan, as hieragg-plan select and
// coll_hieragg_verbose print it.
#include <string>

#include "hieragg/hier/Selection.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier {

using model::fmt;

std::string Plan::describe() const {
    std::string out;
    for (size_t i = 0; i < stages.size(); ++i) {
        const StageChoice& s = stages[i];
        if (!out.empty()) out += "\n";
        std::string where = mode == Mode::Flat     ? "flat"
                            : mode == Mode::Whole  ? "whole"
                            : i + 1 == stages.size() ? "leaders"
                                                     : "L" + std::to_string(i);
        out += "  " + where + " (" + linkClassName(s.link) + ", " + std::to_string(s.members) + " ranks): ";
        if (!s.algo) {
            out += "nothing to do";
            continue;
        }
        if ((s.algo->traits & kTraitFabric)) {
            const char* what = s.algo->coll == HIERAGG_BARRIER                 ? "barrier"
                               : s.algo->shape == TreeShape::Kind::Chain         ? "triggered-chain"
                               : s.algo->coll == HIERAGG_BCAST                   ? "bcast"
                                                                                 : "allreduce";
            out += std::string("ofi-") + what + " pred=" + fmt("%.2f", s.predUs) + " us (" + s.why + ")";
            continue;
        }
        // Trees show their shape and radix; the other families (rings, butterflies, ...) have none.
        const bool tree = (s.algo->traits & kTraitTree) != 0;
        out += std::string(s.algo->name) +
               (tree ? " tree=" + s.shape.name() + " k=" + std::to_string(s.shape.k) : std::string()) +
               " seg=" + std::to_string(s.segmentBytes) + " B pred=" + fmt("%.2f", s.predUs) + " us";
        if (!s.why.empty()) out += " (" + s.why + ")";
    }
    return out;
}

}  // namespace hieragg::hier
