// Text from users and files as it may appear in a warning: non-printable bytes
// (control characters, NUL, bytes >= 0x80) become \xHH escapes, and long text is
// cut with "...", so a garbage file cannot garble or truncate the message.
#pragma once
#include <string>
#include <string_view>

namespace hieragg::hier {

constexpr size_t kPrintableLimit = 200;  // characters of input shown, at most
std::string printable(std::string_view text, size_t limit = kPrintableLimit);

}  // namespace hieragg::hier
