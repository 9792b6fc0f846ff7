// Reading a file named by a parameter (file:PATH, topology:PATH). Only regular
// files are read, and at most kMaxInputFileBytes of them: a FIFO would block
// every rank, /dev/zero would never end, and a huge file would exhaust memory.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace hieragg::aggtree {

// 64 MiB: a topology or group file of any real machine is far smaller.
constexpr size_t kMaxInputFileBytes = size_t{64} << 20;

// what() is "PATH: problem" (cannot open, not a regular file, larger than the cap, read error).
struct InputFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string readInputFile(const std::string& path, size_t maxBytes = kMaxInputFileBytes);

}  // namespace hieragg::aggtree
