// Files named by coll_hieragg_split are read only when regular and only up to a
// cap; anything else is an error naming the path and the problem, at once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "hieragg/aggtree/InputFile.hpp"
#include "hieragg/aggtree/SlurmTopology.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/GroupList.hpp"

using namespace hieragg;

namespace {

std::string tempPath(const std::string& name) {
    return testing::TempDir() + "hieragg_input_" + std::to_string(getpid()) + "_" + name;
}

// Runs f and returns the message it throws (empty if none), checking it takes < 5 s.
template <class F>
std::string errorOf(F f) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string msg;
    try {
        f();
    } catch (const std::exception& e) {
        msg = e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    return msg;
}

}  // namespace

TEST(InputFile, ReadsARegularFileWhole) {
    const std::string p = tempPath("regular");
    std::string content("0-3\n4 5\0 6\n", 11);
    std::ofstream(p, std::ios::binary) << content;
    EXPECT_EQ(aggtree::readInputFile(p), content);
    std::remove(p.c_str());
}

TEST(InputFile, RejectsAFifoWithoutBlocking) {
    const std::string p = tempPath("fifo");
    ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
    const std::string e = errorOf([&] { aggtree::readInputFile(p); });
    EXPECT_NE(e.find(p), std::string::npos) << e;
    EXPECT_NE(e.find("FIFO"), std::string::npos) << e;
    EXPECT_NE(errorOf([&] { hier::loadGroupFile(p); }).find("FIFO"), std::string::npos);
    EXPECT_NE(errorOf([&] { aggtree::loadSlurmTopology(p); }).find("FIFO"), std::string::npos);
    std::remove(p.c_str());
}

TEST(InputFile, RejectsDevicesThatNeverEnd) {
    for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
        const std::string e = errorOf([&] { aggtree::readInputFile(dev); });
        EXPECT_NE(e.find("character device"), std::string::npos) << e;
        EXPECT_NE(errorOf([&] { hier::loadGroupFile(dev); }).find("not a regular file"), std::string::npos);
        EXPECT_NE(errorOf([&] { aggtree::loadSlurmTopology(dev); }).find("not a regular file"), std::string::npos);
    }
}

TEST(InputFile, RejectsDirectoriesMissingFilesAndFilesOverTheCap) {
    EXPECT_NE(errorOf([] { aggtree::readInputFile("/"); }).find("directory"), std::string::npos);
    EXPECT_NE(errorOf([] { aggtree::readInputFile("/nonexistent/x"); }).find("cannot open"), std::string::npos);
    const std::string p = tempPath("big");
    std::ofstream(p) << std::string(1000, 'x');
    EXPECT_EQ(aggtree::readInputFile(p, 1000).size(), 1000u);
    EXPECT_NE(errorOf([&] { aggtree::readInputFile(p, 999); }).find("larger than 999 bytes"), std::string::npos);
    std::remove(p.c_str());
}

// A garbage file's bytes reach the warning escaped: no raw control bytes, nothing cut at a NUL.
TEST(InputFile, WarningsAboutGarbageFilesArePrintable) {
    const std::string p = tempPath("garbage");
    std::string junk("\x01\x02zz\0\xff\x1b[31mred", 14);
    std::ofstream(p, std::ios::binary) << junk;
    std::vector<hier::RankIdentity> ids(2);
    for (int r = 0; r < 2; ++r) ids[r] = {r, "h", 0};
    hier::DecompositionResult d = hier::decomposeValue("file:" + p, ids);
    ASSERT_TRUE(d.fellBack());
    for (char c : d.warning) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "raw byte " << int(static_cast<unsigned char>(c));
    EXPECT_NE(d.warning.find("\\x01\\x02zz\\x00\\xff\\x1b[31mred"), std::string::npos) << d.warning;
    std::remove(p.c_str());
}
