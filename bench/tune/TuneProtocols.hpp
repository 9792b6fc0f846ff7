// The protocols hieragg-tune measures for one collective: every registry
// algorithm of it, with the tunables worth trying (radix k = 2 and 4 where the
// algorithm has a radix; for the chain also a fixed 16 KiB segment next to the
// model's). Index i of a collective's list is what launch i of the driver forces.
#pragma once
#include <string>
#include <vector>

#include "hieragg/hier/AlgorithmRegistry.hpp"

namespace hieragg::tune {

struct Protocol {
    const hier::AlgorithmInfo* algo = nullptr;
    int k = 0;           // 0: the model's
    size_t segment = 0;  // 0: the model's
    std::string label() const;  // "knomial k=4", "chain seg=16384", "flat k=2"
};

std::vector<Protocol> protocolsOf(hieragg_coll_kind coll);
// The collective named `name` ("bcast"); false if there is none.
bool collectiveByName(const std::string& name, hieragg_coll_kind& out);

}  // namespace hieragg::tune
