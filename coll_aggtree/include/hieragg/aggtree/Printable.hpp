// Text from users and files as it may appear in a warning: non-printable bytes
// (control characters, NUL, bytes >= 0x7f) become \xHH escapes, and long text is
// cut with "...", so a garbage file cannot garble or truncate the message (an
// exception's what() would end at a NUL). Applying it twice changes nothing more.
#pragma once
#include <string>
#include <string_view>

namespace hieragg::aggtree {

constexpr size_t kPrintableLimit = 200;  // characters of input shown, at most
std::string printable(std::string_view text, size_t limit = kPrintableLimit);

}  // namespace hieragg::aggtree
