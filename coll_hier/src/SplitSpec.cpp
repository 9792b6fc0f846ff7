// Parser for coll_hieragg_split. Strict: any doubt is an error, because a
// silently misread decomposition would only show up as a slow or wrong run.
#include "hieragg/hier/SplitSpec.hpp"

#include <cctype>
#include <climits>
#include <set>

namespace hieragg::hier {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Splits at top-level commas; commas inside {...} belong to an inline file:{...} group list.
bool splitItems(std::string_view value, std::vector<std::string_view>& items, std::string& error) {
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < value.size(); ++i) {
        char c = value[i];
        if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (--depth < 0) {
                error = "unbalanced '}' at position " + std::to_string(i + 1);
                return false;
            }
        } else if (c == ',' && depth == 0) {
            items.push_back(value.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) {
        error = "unbalanced '{' (missing '}')";
        return false;
    }
    items.push_back(value.substr(start));
    return true;
}

// N of virtual:N / roundrobin:N: plain decimal digits, 1..INT_MAX.
bool parseCount(std::string_view item, std::string_view kind, std::string_view arg, int& n,
                std::string& error) {
    const std::string where = "'" + std::string(item) + "': ";
    if (arg.empty()) {
        error = where + std::string(kind) + " needs a group size N (e.g. " + std::string(kind) + ":4)";
        return false;
    }
    long long v = 0;
    for (char c : arg) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            error = where + "N must be a positive integer, got '" + std::string(arg) + "'";
            return false;
        }
        v = v * 10 + (c - '0');
        if (v > INT_MAX) {
            error = where + "N is too large";
            return false;
        }
    }
    if (v < 1) {
        error = where + "N must be >= 1";
        return false;
    }
    n = static_cast<int>(v);
    return true;
}

bool parseLevel(std::string_view item, SplitLevel& level, std::string& error) {
    const size_t colon = item.find(':');
    const std::string kind = lower(trim(item.substr(0, colon)));
    const bool hasArg = colon != std::string_view::npos;
    const std::string_view arg = hasArg ? trim(item.substr(colon + 1)) : std::string_view{};

    if (kind == "node" || kind == "numa") {
        if (hasArg) {
            error = "'" + std::string(item) + "': " + kind + " takes no argument";
            return false;
        }
        level.kind = kind == "node" ? SplitLevel::Kind::Node : SplitLevel::Kind::Numa;
        return true;
    }
    if (kind == "virtual" || kind == "roundrobin") {
        level.kind = kind == "virtual" ? SplitLevel::Kind::Virtual : SplitLevel::Kind::RoundRobin;
        return parseCount(item, kind, arg, level.n, error);
    }
    if (kind == "file" || kind == "topology") {
        if (arg.empty()) {
            error = "'" + std::string(item) + "': " + kind + " needs a path (e.g. " + kind + ":/etc/groups)";
            return false;
        }
        if (kind == "topology" && arg.front() == '{') {
            error = "'" + std::string(item) + "': the inline {...} form is only for file:";
            return false;
        }
        if (arg.front() == '{' && arg.back() != '}') {
            error = "'" + std::string(item) + "': junk after the inline group list";
            return false;
        }
        level.kind = kind == "file" ? SplitLevel::Kind::File : SplitLevel::Kind::Topology;
        level.path = std::string(arg);
        return true;
    }
    error = "unknown kind '" + kind + "' (expected numa, node, virtual:N, roundrobin:N, file:PATH or topology:PATH)";
    return false;
}

}  // namespace

std::string SplitLevel::text() const {
    switch (kind) {
        case Kind::Numa: return "numa";
        case Kind::Node: return "node";
        case Kind::Virtual: return "virtual:" + std::to_string(n);
        case Kind::RoundRobin: return "roundrobin:" + std::to_string(n);
        case Kind::File: return "file:" + path;
        case Kind::Topology: return "topology:" + path;
    }
    return "?";
}

std::string SplitSpec::text() const {
    std::string out;
    for (const SplitLevel& level : levels) {
        if (!out.empty()) out += ',';
        out += level.text();
    }
    return out;
}

bool parseSplitSpec(std::string_view value, SplitSpec& out, std::string& error) {
    out = SplitSpec{};
    out.levels.push_back(SplitLevel{});  // the safe default "node", kept on any error
    error.clear();

    if (trim(value).empty()) {
        error = "empty value (expected e.g. 'node' or 'numa,node')";
        return false;
    }
    std::vector<std::string_view> items;
    if (!splitItems(value, items, error)) return false;

    SplitSpec parsed;
    std::set<std::string> seen;
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string_view item = trim(items[i]);
        if (item.empty()) {
            error = "empty item at position " + std::to_string(i + 1) + " (stray comma?)";
            return false;
        }
        SplitLevel level;
        if (!parseLevel(item, level, error)) return false;
        if (!seen.insert(level.text()).second) {
            error = "duplicate level '" + level.text() + "'";
            return false;
        }
        parsed.levels.push_back(std::move(level));
    }
    if (parsed.levels.size() > kMaxSplitLevels) {
        // Every level is one more stage of channels in a call's tag block (docs/architecture.md).
        error = std::to_string(parsed.levels.size()) + " levels; at most " + std::to_string(kMaxSplitLevels) +
                " are supported";
        return false;
    }
    out = std::move(parsed);
    return true;
}

}  // namespace hieragg::hier
