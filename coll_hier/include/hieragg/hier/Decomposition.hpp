// Turns coll_hieragg_split plus every rank's identity into a Hierarchy. Every rank
// runs this on the same inputs (identities are exchanged once per communicator, files
// are shared), so all ranks agree on the result and on any fallback.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/SplitSpec.hpp"

namespace hieragg::hier {

struct DecompositionResult {
    Hierarchy hierarchy;
    std::vector<std::string> levelNames;  // one per hierarchy level, for describe()
    SplitSpec applied;                    // what was used: the request, or "node" after a fallback
    // Empty if the request was applied; otherwise names coll_hieragg_split, the file and
    // line and the problem, and says that the "node" decomposition is used instead.
    std::string warning;
    bool fellBack() const { return !warning.empty(); }
    // Empty unless the request was applied with a change the user should hear about once
    // (a topology file with more switch levels than the level cap leaves room for).
    std::string notice;
};

// `all` is indexed by communicator rank. Bad input (unreadable or malformed file, a rank
// in no group or in two, a host missing from topology.conf, ...) falls back to "node".
DecompositionResult decompose(const SplitSpec& spec, const std::vector<RankIdentity>& all);

// Parses the raw parameter value first; a parse error is reported the same way.
DecompositionResult decomposeValue(std::string_view splitValue, const std::vector<RankIdentity>& all);

}  // namespace hieragg::hier
