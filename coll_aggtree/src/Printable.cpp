#include "hieragg/aggtree/Printable.hpp"
#include <algorithm>

namespace hieragg::aggtree {

std::string printable(std::string_view text, size_t limit) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(std::min(text.size(), limit) + 8);
    for (size_t i = 0; i < text.size(); ++i) {
        if (i == limit) {
            out += "...";
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace hieragg::aggtree
