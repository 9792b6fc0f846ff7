// Per-level keys for every rank, then Hierarchy::fromKeys does the nesting.
#include "hieragg/hier/Decomposition.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "hieragg/aggtree/SlurmTopology.hpp"
#include "hieragg/hier/GroupList.hpp"
#include "hieragg/hier/ParsedFileCache.hpp"
#include "hieragg/aggtree/Printable.hpp"

namespace hieragg::hier {

namespace {

// A level that cannot be computed; the message is "SOURCE[:LINE]: problem".
struct LevelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using Keys = std::vector<int64_t>;

// Host names numbered in sorted order: the same on every rank whatever the rank order.
std::vector<int64_t> hostIds(const std::vector<RankIdentity>& all) {
    std::map<std::string, int64_t> ids;
    for (const RankIdentity& id : all) ids.emplace(id.hostname, 0);
    int64_t next = 0;
    for (auto& [name, value] : ids) value = next++;
    Keys keys(all.size());
    for (size_t r = 0; r < all.size(); ++r) keys[r] = ids.at(all[r].hostname);
    return keys;
}

Keys nodeKeys(const std::vector<RankIdentity>& all) { return hostIds(all); }

// (host, numa). A node where some rank does not know its NUMA domain is not split at
// all: that rank's domain is "the whole node", and groups must stay a partition.
Keys numaKeys(const std::vector<RankIdentity>& all) {
    const Keys host = hostIds(all);
    std::unordered_map<int64_t, bool> nodeHasUnknown;
    for (size_t r = 0; r < all.size(); ++r) nodeHasUnknown[host[r]] |= all[r].numa < 0;
    Keys keys(all.size());
    for (size_t r = 0; r < all.size(); ++r) {
        const int64_t numa = nodeHasUnknown[host[r]] ? 0 : int64_t{all[r].numa} + 1;
        keys[r] = (host[r] << 32) | numa;
    }
    return keys;
}

Keys blockKeys(size_t n, int blockSize) {
    Keys keys(n);
    for (size_t r = 0; r < n; ++r) keys[r] = static_cast<int64_t>(r) / blockSize;
    return keys;
}

Keys roundRobinKeys(size_t n, int modulus) {
    Keys keys(n);
    for (size_t r = 0; r < n; ++r) keys[r] = static_cast<int64_t>(r) % modulus;
    return keys;
}

// World rank -> group index of a group list.
using GroupOfWorld = std::unordered_map<int, int64_t>;

GroupOfWorld groupsOf(const std::vector<ExplicitGroup>& groups) {
    GroupOfWorld groupOfWorld;
    for (size_t g = 0; g < groups.size(); ++g)
        for (int w : groups[g].worldRanks) groupOfWorld.emplace(w, static_cast<int64_t>(g));
    return groupOfWorld;
}

Keys fileKeys(const std::string& pathOrInline, const std::vector<RankIdentity>& all) {
    static ParsedFileCache<GroupOfWorld> cache;
    const bool isInline = isInlineGroupList(pathOrInline);
    std::shared_ptr<const GroupOfWorld> groupOfWorld;
    try {
        groupOfWorld = isInline ? std::make_shared<const GroupOfWorld>(groupsOf(parseInlineGroupList(pathOrInline)))
                                : cache.get(pathOrInline, [](const std::string& path) {
                                      return groupsOf(loadGroupFile(path));
                                  });
    } catch (const GroupListError& e) {
        throw LevelError(e.what());
    }

    const std::string source = isInline ? "inline group list" : pathOrInline;
    Keys keys(all.size());
    for (size_t r = 0; r < all.size(); ++r) {
        auto it = groupOfWorld->find(all[r].worldRank);
        if (it == groupOfWorld->end())
            throw LevelError(source + ": world rank " + std::to_string(all[r].worldRank) +
                             " is in no group");
        keys[r] = it->second;
    }
    return keys;
}

// One level per switch level of the file, leaf switches first (docs/decomposition.md).
struct SwitchLevels {
    std::vector<Keys> keys;          // keys[d][r]: rank r's switch d levels above its leaf
    std::vector<std::string> names;  // one per kept level
};

// The switch levels of each rank's host, leaf upward. Hosts are matched by full name, then
// by the short name before the first '.', since gethostname() may return an FQDN. A rank
// whose path to the top is shorter than another's keeps its top switch on the levels above.
// A level that would not split its outer level (the level above, or the whole communicator
// for the top), or that groups exactly as the leaf level does, is pruned; the leaf level is
// always kept, so a topology item yields >= 1 level.
SwitchLevels topologyLevels(const SplitLevel& level, const std::vector<RankIdentity>& all) {
    const std::string& path = level.path;
    static ParsedFileCache<aggtree::SlurmTopology> cache;
    std::shared_ptr<const aggtree::SlurmTopology> topo;
    try {
        topo = cache.get(path, [](const std::string& p) { return aggtree::loadSlurmTopology(p); });
    } catch (const aggtree::TopologyParseError& e) {
        throw LevelError(e.what());
    } catch (const std::exception& e) {  // e.g. a bad hostlist expression
        throw LevelError(path + ": " + e.what());
    }
    // Only this communicator's hosts (full and short names) are looked up: one pass over
    // the switches, no index of every node in the file.
    std::unordered_map<std::string, int64_t> leafOfHost;
    for (const RankIdentity& id : all) {
        leafOfHost.emplace(id.hostname, -1);
        leafOfHost.emplace(id.hostname.substr(0, id.hostname.find('.')), -1);
    }
    for (size_t s = 0; s < topo->switches.size(); ++s)
        for (const std::string& node : topo->switches[s].nodes) {
            auto it = leafOfHost.find(node);
            if (it != leafOfHost.end() && it->second < 0) it->second = static_cast<int64_t>(s);
        }
    // Parent of every switch, once (SlurmTopology::parentOf scans the file per call). The
    // parser rejects cycles and second parents, so walking up terminates.
    std::unordered_map<std::string, int64_t> indexOfName;
    for (size_t s = 0; s < topo->switches.size(); ++s) indexOfName.emplace(topo->switches[s].name, static_cast<int64_t>(s));
    std::vector<int64_t> parent(topo->switches.size(), -1);
    for (size_t s = 0; s < topo->switches.size(); ++s)
        for (const std::string& child : topo->switches[s].switches) {
            auto it = indexOfName.find(child);
            if (it != indexOfName.end()) parent[static_cast<size_t>(it->second)] = static_cast<int64_t>(s);
        }

    // Paths are per leaf switch, so computed once per distinct leaf.
    std::unordered_map<int64_t, std::vector<int64_t>> pathOfLeaf;
    std::vector<const std::vector<int64_t>*> pathOfRank(all.size());
    size_t depth = 0;
    for (size_t r = 0; r < all.size(); ++r) {
        const std::string& host = all[r].hostname;
        int64_t leaf = leafOfHost.at(host);
        if (leaf < 0) leaf = leafOfHost.at(host.substr(0, host.find('.')));
        if (leaf < 0)
            throw LevelError(path + ": host '" + host + "' (communicator rank " + std::to_string(r) +
                             ") is not listed in any switch's Nodes=");
        auto [it, fresh] = pathOfLeaf.try_emplace(leaf);
        if (fresh)
            for (int64_t s = leaf; s >= 0 && it->second.size() <= topo->switches.size(); s = parent[static_cast<size_t>(s)])
                it->second.push_back(s);
        pathOfRank[r] = &it->second;
        depth = std::max(depth, it->second.size());
    }

    std::vector<Keys> keys(depth, Keys(all.size()));
    for (size_t r = 0; r < all.size(); ++r)
        for (size_t d = 0; d < depth; ++d) keys[d][r] = (*pathOfRank[r])[std::min(d, pathOfRank[r]->size() - 1)];

    // Groups per level, outermost first. Levels nest, so two levels group alike exactly when
    // they have as many groups: a level is kept if it has more groups than the one above it
    // (it splits something) and fewer than the leaf level (the leaf does not repeat it).
    std::vector<size_t> count(depth + 1, 1);
    std::vector<int64_t> outerGroup(all.size(), 0);
    for (size_t d = depth; d-- > 0;) {
        std::map<std::pair<int64_t, int64_t>, int64_t> dense;
        std::vector<int64_t> group(all.size());
        for (size_t r = 0; r < all.size(); ++r)
            group[r] = dense.emplace(std::make_pair(outerGroup[r], keys[d][r]), static_cast<int64_t>(dense.size()))
                           .first->second;
        count[d] = dense.size();
        outerGroup.swap(group);
    }
    std::vector<bool> keep(depth, false);
    for (size_t d = 0; d < depth; ++d) keep[d] = d == 0 || (count[d] > count[d + 1] && count[d] < count[0]);
    SwitchLevels out;
    for (size_t d = 0; d < depth; ++d) {
        if (!keep[d]) continue;
        out.keys.push_back(std::move(keys[d]));
        out.names.push_back(d == 0 ? level.text() : level.text() + " (switch level " + std::to_string(d) + ")");
    }
    return out;
}

Keys levelKeys(const SplitLevel& level, const std::vector<RankIdentity>& all) {
    switch (level.kind) {
        case SplitLevel::Kind::Numa: return numaKeys(all);
        case SplitLevel::Kind::Node: return nodeKeys(all);
        case SplitLevel::Kind::Virtual: return blockKeys(all.size(), level.n);
        case SplitLevel::Kind::RoundRobin: return roundRobinKeys(all.size(), level.n);
        case SplitLevel::Kind::File: return fileKeys(level.path, all);
        case SplitLevel::Kind::Topology: break;  // several levels: topologyLevels()
    }
    throw LevelError("unknown level kind");
}

DecompositionResult build(const SplitSpec& spec, const std::vector<RankIdentity>& all) {
    if (spec.levels.empty()) throw LevelError("no levels");
    DecompositionResult result;
    std::vector<Keys> keys;
    for (size_t i = 0; i < spec.levels.size(); ++i) {
        const SplitLevel& level = spec.levels[i];
        if ((level.kind == SplitLevel::Kind::Virtual || level.kind == SplitLevel::Kind::RoundRobin) && level.n < 1)
            throw LevelError(level.text() + ": N must be >= 1");
        if (level.kind != SplitLevel::Kind::Topology) {
            keys.push_back(levelKeys(level, all));
            result.levelNames.push_back(level.text());
            continue;
        }
        SwitchLevels switches = topologyLevels(level, all);
        // The level cap counts levels after expansion; the top switch levels go first,
        // since lower levels carry the traffic that stays under one switch.
        const size_t room = kMaxSplitLevels - std::min(kMaxSplitLevels, keys.size() + (spec.levels.size() - i - 1));
        const size_t take = std::max<size_t>(1, std::min(room, switches.keys.size()));
        if (take < switches.keys.size())
            result.notice = "coll_hieragg_split=" + aggtree::printable(spec.text(), 300) + ": " +
                            aggtree::printable(level.path, 300) + " has " + std::to_string(switches.keys.size()) +
                            " switch levels that split this communicator; at most " +
                            std::to_string(kMaxSplitLevels) + " levels are supported; using only the lowest " +
                            std::to_string(take) + (take == 1 ? " switch level" : " switch levels");
        for (size_t d = 0; d < take; ++d) {
            keys.push_back(std::move(switches.keys[d]));
            result.levelNames.push_back(switches.names[d]);
        }
    }
    result.hierarchy = Hierarchy::fromKeys(static_cast<int>(all.size()), keys);
    result.applied = spec;
    return result;
}

DecompositionResult fallBack(const std::string& requested, const std::string& problem,
                             const std::vector<RankIdentity>& all) {
    SplitSpec node;
    node.levels.push_back(SplitLevel{});
    DecompositionResult result = build(node, all);
    // The value and file contents may hold anything: show them escaped.
    result.warning = "coll_hieragg_split=" + aggtree::printable(requested, 300) + ": " + aggtree::printable(problem, 300) +
                     "; using the 'node' decomposition instead";
    return result;
}

}  // namespace

DecompositionResult decompose(const SplitSpec& spec, const std::vector<RankIdentity>& all) {
    try {
        return build(spec, all);
    } catch (const LevelError& e) {
        return fallBack(spec.text(), e.what(), all);
    }
}

DecompositionResult decomposeValue(std::string_view splitValue, const std::vector<RankIdentity>& all) {
    SplitSpec spec;
    std::string error;
    if (!parseSplitSpec(splitValue, spec, error)) return fallBack("'" + std::string(splitValue) + "'", error, all);
    return decompose(spec, all);
}

}  // namespace hieragg::hier
