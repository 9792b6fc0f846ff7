// Parser for Slurm's topology/tree configuration (topology.conf).
// Slurm treats keys case-insensitively and ignores '#' comments; we follow it,
// but reject unknown keys instead of warning, because a silently ignored typo
// (e.g. "Node=") would produce a wrong hierarchy at run time.
#include "hieragg/aggtree/SlurmTopology.hpp"

#include "hieragg/aggtree/InputFile.hpp"
#include "hieragg/aggtree/Printable.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace hieragg::aggtree {

namespace {

// A single range may not expand to more names than this: a typo such as
// n[0-99999999999] must fail fast rather than exhaust memory.
constexpr long long kMaxRangeNames = 1000000;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

bool allDigits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Expand the inside of one bracket, "0-3,07,10-11", into numeric strings.
std::vector<std::string> expandBracket(const std::string& body, const std::string& expr) {
    std::vector<std::string> out;
    if (body.empty()) throw std::invalid_argument("empty brackets in hostlist '" + expr + "'");
    std::stringstream ss(body);
    std::string item;
    size_t commas = static_cast<size_t>(std::count(body.begin(), body.end(), ','));
    size_t items = 0;
    while (std::getline(ss, item, ',')) {
        ++items;
        item = trim(item);
        auto dash = item.find('-');
        std::string lo = dash == std::string::npos ? item : item.substr(0, dash);
        std::string hi = dash == std::string::npos ? item : item.substr(dash + 1);
        if (!allDigits(lo) || !allDigits(hi))
            throw std::invalid_argument("bad range '" + item + "' in hostlist '" + expr + "'");
        if (lo.size() > 18 || hi.size() > 18)
            throw std::invalid_argument("number too long in hostlist '" + expr + "'");
        long long a = std::stoll(lo), b = std::stoll(hi);
        if (a > b)
            throw std::invalid_argument("descending range '" + item + "' in hostlist '" + expr + "'");
        if (b - a + 1 > kMaxRangeNames)
            throw std::invalid_argument("range '" + item + "' too large in hostlist '" + expr + "'");
        // Slurm keeps the width of the lower bound: n[08-10] -> n08 n09 n10.
        size_t width = lo.size();
        for (long long v = a; v <= b; ++v) {
            std::string num = std::to_string(v);
            if (num.size() < width) num.insert(0, width - num.size(), '0');
            out.push_back(num);
        }
    }
    if (items != commas + 1) throw std::invalid_argument("empty element in hostlist '" + expr + "'");
    return out;
}

// Expand one comma-free (at top level) host expression: prefix[a-b]mid[c-d]suffix.
// Several bracketed parts form a cartesian product, leftmost varying slowest.
void expandOne(const std::string& word, const std::string& expr, std::vector<std::string>& out) {
    std::vector<std::string> partial{""};
    size_t i = 0;
    while (i < word.size()) {
        char c = word[i];
        if (c == ']') throw std::invalid_argument("unmatched ']' in hostlist '" + expr + "'");
        if (c == '[') {
            size_t close = word.find(']', i + 1);
            if (close == std::string::npos)
                throw std::invalid_argument("unmatched '[' in hostlist '" + expr + "'");
            std::string body = word.substr(i + 1, close - i - 1);
            if (body.find('[') != std::string::npos)
                throw std::invalid_argument("nested '[' in hostlist '" + expr + "'");
            auto nums = expandBracket(body, expr);
            if (partial.size() * nums.size() > static_cast<size_t>(kMaxRangeNames))
                throw std::invalid_argument("hostlist '" + expr + "' expands to too many names");
            std::vector<std::string> next;
            next.reserve(partial.size() * nums.size());
            for (const auto& p : partial)
                for (const auto& n : nums) next.push_back(p + n);
            partial.swap(next);
            i = close + 1;
        } else {
            if (std::isspace(static_cast<unsigned char>(c)))
                throw std::invalid_argument("whitespace in hostlist '" + expr + "'");
            for (auto& p : partial) p.push_back(c);
            ++i;
        }
    }
    out.insert(out.end(), partial.begin(), partial.end());
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& problem) {
    throw TopologyParseError(printable(file + ":" + std::to_string(line) + ": " + problem, 300));
}

}  // namespace

std::vector<std::string> expandHostlist(const std::string& exprIn) {
    std::string expr = trim(exprIn);
    std::vector<std::string> out;
    if (expr.empty()) return out;
    // Split on commas outside brackets.
    int depth = 0;
    std::string word;
    auto flush = [&] {
        if (word.empty()) throw std::invalid_argument("empty element in hostlist '" + expr + "'");
        expandOne(word, expr, out);
        word.clear();
    };
    for (char c : expr) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (depth < 0) throw std::invalid_argument("unmatched ']' in hostlist '" + expr + "'");
        if (c == ',' && depth == 0) {
            flush();
        } else {
            word.push_back(c);
        }
    }
    if (depth != 0) throw std::invalid_argument("unmatched '[' in hostlist '" + expr + "'");
    flush();
    return out;
}

int SlurmTopology::leafOf(const std::string& node) const {
    for (size_t i = 0; i < switches.size(); ++i)
        for (const auto& n : switches[i].nodes)
            if (n == node) return static_cast<int>(i);
    return -1;
}

int SlurmTopology::parentOf(int switchIndex) const {
    if (switchIndex < 0 || switchIndex >= static_cast<int>(switches.size())) return -1;
    const std::string& name = switches[switchIndex].name;
    for (size_t i = 0; i < switches.size(); ++i)
        for (const auto& s : switches[i].switches)
            if (s == name) return static_cast<int>(i);
    return -1;
}

std::vector<int> SlurmTopology::pathToTop(const std::string& node) const {
    std::vector<int> path;
    int s = leafOf(node);
    // The bound protects hand-built (unparsed) topologies that contain a cycle.
    while (s >= 0 && path.size() <= switches.size()) {
        path.push_back(s);
        s = parentOf(s);
    }
    return path;
}

SlurmTopology parseSlurmTopology(std::istream& in, const std::string& filename) {
    SlurmTopology topo;
    std::unordered_map<std::string, int> indexOfName;
    std::unordered_map<std::string, int> leafOfNode;     // node -> switch index
    std::unordered_map<std::string, int> parentOfSwitch;  // child switch -> switch index
    std::string raw;
    int lineNo = 0;
    while (std::getline(in, raw)) {
        ++lineNo;
        auto hash = raw.find('#');
        if (hash != std::string::npos) raw.erase(hash);
        std::string text = trim(raw);
        if (text.empty()) continue;

        SlurmSwitch sw;
        sw.line = lineNo;
        bool haveName = false, haveNodes = false, haveSwitches = false;
        std::istringstream words(text);
        std::string tok;
        while (words >> tok) {
            auto eq = tok.find('=');
            if (eq == std::string::npos || eq == 0) fail(filename, lineNo, "expected KEY=VALUE, got '" + tok + "'");
            std::string key = lower(tok.substr(0, eq));
            std::string value = tok.substr(eq + 1);
            if (key == "switchname") {
                if (haveName) fail(filename, lineNo, "SwitchName given twice");
                if (value.empty()) fail(filename, lineNo, "empty SwitchName");
                if (value.find_first_of("[],") != std::string::npos)
                    fail(filename, lineNo, "SwitchName '" + value + "' must be a single name");
                sw.name = value;
                haveName = true;
            } else if (key == "nodes" || key == "switches") {
                bool& seen = key == "nodes" ? haveNodes : haveSwitches;
                if (seen) fail(filename, lineNo, tok.substr(0, eq) + " given twice");
                seen = true;
                std::vector<std::string> names;
                try {
                    names = expandHostlist(value);
                } catch (const std::invalid_argument& e) {
                    fail(filename, lineNo, e.what());
                }
                (key == "nodes" ? sw.nodes : sw.switches) = std::move(names);
            } else if (key == "linkspeed") {
                // Known to Slurm; bandwidth does not enter the hop-count model.
            } else {
                fail(filename, lineNo, "unknown key '" + tok.substr(0, eq) + "'");
            }
        }
        if (!haveName) fail(filename, lineNo, "missing SwitchName");
        if (indexOfName.count(sw.name))
            fail(filename, lineNo,
                 "duplicate switch '" + sw.name + "' (first defined on line " +
                     std::to_string(topo.switches[indexOfName[sw.name]].line) + ")");
        int idx = static_cast<int>(topo.switches.size());
        for (const auto& n : sw.nodes) {
            auto [it, fresh] = leafOfNode.emplace(n, idx);
            if (!fresh) {
                if (it->second == idx) fail(filename, lineNo, "node '" + n + "' listed twice");
                fail(filename, lineNo,
                     "node '" + n + "' already attached to switch '" + topo.switches[it->second].name + "'");
            }
        }
        for (const auto& c : sw.switches) {
            auto [it, fresh] = parentOfSwitch.emplace(c, idx);
            if (!fresh) {
                if (it->second == idx) fail(filename, lineNo, "switch '" + c + "' listed twice");
                fail(filename, lineNo,
                     "switch '" + c + "' already a child of switch '" + topo.switches[it->second].name + "'");
            }
        }
        indexOfName.emplace(sw.name, idx);
        topo.switches.push_back(std::move(sw));
    }
    if (in.bad()) throw TopologyParseError(filename + ": read error");

    // Children may be defined after their parent, so references are checked at the end.
    for (const auto& sw : topo.switches)
        for (const auto& c : sw.switches)
            if (!indexOfName.count(c)) fail(filename, sw.line, "switch '" + c + "' is never defined");

    // Every switch has at most one parent, so a cycle is found by walking up.
    const int n = static_cast<int>(topo.switches.size());
    std::vector<int> parent(n, -1);
    for (const auto& [child, p] : parentOfSwitch) parent[indexOfName.at(child)] = p;
    std::vector<int> state(n, 0);  // 0 unvisited, 1 on current walk, 2 done
    for (int s = 0; s < n; ++s) {
        std::vector<int> walk;
        int v = s;
        while (v >= 0 && state[v] == 0) {
            state[v] = 1;
            walk.push_back(v);
            v = parent[v];
        }
        if (v >= 0 && state[v] == 1) {
            // Report at the earliest line among the cycle's members.
            int first = v;
            std::string names = topo.switches[v].name;
            for (int u = parent[v]; u != v; u = parent[u]) {
                names += " -> " + topo.switches[u].name;
                if (topo.switches[u].line < topo.switches[first].line) first = u;
            }
            names += " -> " + topo.switches[v].name;
            fail(filename, topo.switches[first].line, "switch cycle " + names);
        }
        for (int u : walk) state[u] = 2;
    }
    return topo;
}

SlurmTopology loadSlurmTopology(const std::string& path) {
    std::string text;
    try {
        text = readInputFile(path);
    } catch (const InputFileError& e) {
        throw TopologyParseError(e.what());
    }
    std::istringstream in(std::move(text));
    return parseSlurmTopology(in, path);
}

}  // namespace hieragg::aggtree
