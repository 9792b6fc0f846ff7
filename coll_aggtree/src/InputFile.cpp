#include "hieragg/aggtree/InputFile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace hieragg::aggtree {

namespace {
std::string kindOf(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}
}  // namespace

std::string readInputFile(const std::string& path, size_t maxBytes) {
    // stat before open: opening a FIFO for reading blocks until someone writes.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw InputFileError(path + ": cannot open (" + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode)) throw InputFileError(path + ": is " + kindOf(st.st_mode) + ", not a regular file");
    if (static_cast<unsigned long long>(st.st_size) > maxBytes)
        throw InputFileError(path + ": larger than " + std::to_string(maxBytes) + " bytes");
    // O_NONBLOCK: should the path become a FIFO between stat and open, open does not block.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputFileError(path + ": cannot open (" + std::strerror(errno) + ")");
    struct stat again {};
    if (::fstat(fd, &again) != 0 || !S_ISREG(again.st_mode)) {
        ::close(fd);
        throw InputFileError(path + ": not a regular file");
    }
    std::string data;
    data.resize(static_cast<size_t>(again.st_size) + 1);
    size_t have = 0;
    for (;;) {
        if (have == data.size()) {
            // The file grew since fstat: allow up to the cap, never beyond.
            if (data.size() > maxBytes) {
                ::close(fd);
                throw InputFileError(path + ": larger than " + std::to_string(maxBytes) + " bytes");
            }
            data.resize(std::min(maxBytes + 1, data.size() * 2 + 4096));
        }
        const ssize_t got = ::read(fd, &data[have], data.size() - have);
        if (got < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            throw InputFileError(path + ": read error (" + std::strerror(err) + ")");
        }
        if (got == 0) break;
        have += static_cast<size_t>(got);
    }
    ::close(fd);
    if (have > maxBytes) throw InputFileError(path + ": larger than " + std::to_string(maxBytes) + " bytes");
    data.resize(have);
    return data;
}

}  // namespace hieragg::aggtree
