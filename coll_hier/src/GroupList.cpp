// Parser for explicit group lists (file:PATH and file:{...}).
#include "hieragg/hier/GroupList.hpp"

#include "hieragg/aggtree/InputFile.hpp"
#include "hieragg/aggtree/Printable.hpp"

#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace hieragg::hier {

namespace {

// A group file of a huge machine is still far below this; it guards against "0-2000000000".
constexpr long long kMaxListedRanks = 1LL << 24;

bool parseRank(std::string_view s, int& out) {
    if (s.empty()) return false;
    long long v = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        v = v * 10 + (c - '0');
        if (v > INT_MAX) return false;
    }
    out = static_cast<int>(v);
    return true;
}

class GroupListBuilder {
public:
    explicit GroupListBuilder(std::string sourceName, std::string lineWord)
        : source_(std::move(sourceName)), lineWord_(std::move(lineWord)) {}

    // One line (or inline group); `number` is its 1-based line / group number.
    void addLine(std::string_view text, int number) {
        const size_t hash = text.find('#');
        if (hash != std::string_view::npos) text = text.substr(0, hash);
        ExplicitGroup group;
        group.line = number;
        size_t i = 0;
        while (i < text.size()) {
            const char c = text[i];
            if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
                ++i;
                continue;
            }
            size_t end = i;
            while (end < text.size() && text[end] != ',' && !std::isspace(static_cast<unsigned char>(text[end])))
                ++end;
            addToken(text.substr(i, end - i), group);
            i = end;
        }
        if (!group.worldRanks.empty()) groups_.push_back(std::move(group));
    }

    std::vector<ExplicitGroup> finish() {
        if (groups_.empty()) throw GroupListError(source_ + ": no groups listed");
        return std::move(groups_);
    }

private:
    [[noreturn]] void fail(int number, const std::string& problem) const {
        // Files read "PATH:3: problem" like compiler errors; inline lists "..., group 3: problem".
        const std::string where = lineWord_.empty() ? source_ + ":" : source_ + ", " + lineWord_;
        throw GroupListError(aggtree::printable(where + std::to_string(number) + ": " + problem, 300));
    }

    void addToken(std::string_view token, ExplicitGroup& group) {
        const size_t dash = token.find('-');
        int lo = 0, hi = 0;
        if (dash == std::string_view::npos) {
            if (!parseRank(token, lo)) fail(group.line, "'" + std::string(token) + "' is not a world rank");
            hi = lo;
        } else {
            if (!parseRank(token.substr(0, dash), lo) || !parseRank(token.substr(dash + 1), hi))
                fail(group.line, "'" + std::string(token) + "' is not a range of world ranks (A-B)");
            if (lo > hi) fail(group.line, "range '" + std::string(token) + "' is reversed");
        }
        listed_ += static_cast<long long>(hi) - lo + 1;
        if (listed_ > kMaxListedRanks) fail(group.line, "too many ranks listed");
        for (long long r = lo; r <= hi; ++r) {
            const int rank = static_cast<int>(r);
            auto [it, fresh] = firstSeen_.emplace(rank, group.line);
            if (!fresh)
                fail(group.line, "world rank " + std::to_string(rank) + " listed twice (first " +
                                     (lineWord_.empty() ? "on line " : "in " + lineWord_) +
                                     std::to_string(it->second) + ")");
            group.worldRanks.push_back(rank);
        }
    }

    std::string source_;
    std::string lineWord_;  // "" for files ("path:3"), "group " for inline lists
    std::vector<ExplicitGroup> groups_;
    std::unordered_map<int, int> firstSeen_;  // world rank -> line
    long long listed_ = 0;
};

}  // namespace

bool isInlineGroupList(std::string_view pathOrInline) {
    return !pathOrInline.empty() && pathOrInline.front() == '{';
}

std::vector<ExplicitGroup> parseGroupList(std::istream& in, const std::string& sourceName) {
    GroupListBuilder builder(sourceName, "");
    std::string line;
    int number = 0;
    while (std::getline(in, line)) builder.addLine(line, ++number);
    if (in.bad()) throw GroupListError(sourceName + ": read error");
    return builder.finish();
}

std::vector<ExplicitGroup> loadGroupFile(const std::string& path) {
    std::string text;
    try {
        text = aggtree::readInputFile(path);
    } catch (const aggtree::InputFileError& e) {
        throw GroupListError(e.what());
    }
    std::istringstream in(std::move(text));
    return parseGroupList(in, path);
}

std::vector<ExplicitGroup> parseInlineGroupList(std::string_view text) {
    const std::string source = "inline group list";
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
        throw GroupListError(source + ": expected {GROUP;GROUP;...}");
    text = text.substr(1, text.size() - 2);
    GroupListBuilder builder(source, "group ");
    int number = 0;
    size_t start = 0;
    while (true) {
        const size_t semi = text.find(';', start);
        const std::string_view group = text.substr(start, semi == std::string_view::npos ? semi : semi - start);
        if (group.find_first_of("{}#") != std::string_view::npos)
            throw GroupListError(source + ", group " + std::to_string(number + 1) + ": unexpected '{', '}' or '#'");
        builder.addLine(group, ++number);
        if (semi == std::string_view::npos) break;
        start = semi + 1;
    }
    return builder.finish();
}

}  // namespace hieragg::hier
