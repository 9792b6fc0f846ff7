// Per-level keys for every rank, then Hierarchy::fromKeys does the nesting.
#include "hieragg/hier/Decomposition.hpp"

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

// Leaf switch of each rank's host. Hosts are matched by full name, then by the short
// name before the first '.', since gethostname() may return an FQDN.
Keys topologyKeys(const std::string& path, const std::vector<RankIdentity>& all) {
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

    Keys keys(all.size());
    for (size_t r = 0; r < all.size(); ++r) {
        const std::string& host = all[r].hostname;
        int64_t leaf = leafOfHost.at(host);
        if (leaf < 0) leaf = leafOfHost.at(host.substr(0, host.find('.')));
        if (leaf < 0)
            throw LevelError(path + ": host '" + host + "' (communicator rank " + std::to_string(r) +
                             ") is not listed in any switch's Nodes=");
        keys[r] = leaf;
    }
    return keys;
}

Keys levelKeys(const SplitLevel& level, const std::vector<RankIdentity>& all) {
    switch (level.kind) {
        case SplitLevel::Kind::Numa: return numaKeys(all);
        case SplitLevel::Kind::Node: return nodeKeys(all);
        case SplitLevel::Kind::Virtual: return blockKeys(all.size(), level.n);
        case SplitLevel::Kind::RoundRobin: return roundRobinKeys(all.size(), level.n);
        case SplitLevel::Kind::File: return fileKeys(level.path, all);
        case SplitLevel::Kind::Topology: return topologyKeys(level.path, all);
    }
    throw LevelError("unknown level kind");
}

DecompositionResult build(const SplitSpec& spec, const std::vector<RankIdentity>& all) {
    if (spec.levels.empty()) throw LevelError("no levels");
    DecompositionResult result;
    std::vector<Keys> keys;
    for (const SplitLevel& level : spec.levels) {
        if ((level.kind == SplitLevel::Kind::Virtual || level.kind == SplitLevel::Kind::RoundRobin) && level.n < 1)
            throw LevelError(level.text() + ": N must be >= 1");
        keys.push_back(levelKeys(level, all));
        result.levelNames.push_back(level.text());
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
