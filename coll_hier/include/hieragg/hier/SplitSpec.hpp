// The value of coll_hieragg_split: decomposition levels, inner level first,
// comma-separated: numa | node | virtual:N | roundrobin:N | file:PATH | topology:PATH.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hieragg::hier {

// Nesting deeper than this is refused (warning, fallback to node): each level costs
// channel stages in a call's tag block, and real machines have a handful of levels.
constexpr size_t kMaxSplitLevels = 7;

struct SplitLevel {
    enum class Kind { Numa, Node, Virtual, RoundRobin, File, Topology };
    Kind kind = Kind::Node;
    int n = 0;         // Virtual / RoundRobin
    std::string path;  // File / Topology
    std::string text() const;  // canonical spelling, e.g. "virtual:4"
};

struct SplitSpec {
    std::vector<SplitLevel> levels;  // inner first; never empty after parsing
    std::string text() const;
};

// Parses the parameter value. On error returns false, leaves `out` as the safe
// default ("node") and sets `error` to a message naming the problem
// (e.g. "unknown kind 'foo'", "virtual:0: N must be >= 1").
bool parseSplitSpec(std::string_view value, SplitSpec& out, std::string& error);

}  // namespace hieragg::hier
