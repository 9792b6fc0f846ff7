// Explicit groups for coll_hieragg_split=file:PATH (or the inline file:{...} form).
// Format (docs/decomposition.md): one group per line, world ranks as a comma- or
// space-separated list of numbers and ranges ("0-3,8"), '#' starts a comment.
// Inline: groups separated by ';' inside braces, e.g. "{0-3,8;4-7}".
#pragma once
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hieragg::hier {

struct ExplicitGroup {
    std::vector<int> worldRanks;  // in the order written
    int line = 0;                 // 1-based line (file) or group number (inline)
};

// what() is "SOURCE:LINE: problem", or "SOURCE: problem" when no line applies.
struct GroupListError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws GroupListError on malformed input, a world rank listed twice, or no groups at all.
std::vector<ExplicitGroup> parseGroupList(std::istream& in, const std::string& sourceName);
std::vector<ExplicitGroup> loadGroupFile(const std::string& path);  // unreadable -> GroupListError
// `text` is the whole "{...}" including braces.
std::vector<ExplicitGroup> parseInlineGroupList(std::string_view text);
bool isInlineGroupList(std::string_view pathOrInline);  // starts with '{'

}  // namespace hieragg::hier
