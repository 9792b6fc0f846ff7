// A file is parsed once while it is unchanged, again once it changes, and a
// parse error is never cached.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "hieragg/aggtree/InputFile.hpp"
#include "hieragg/hier/ParsedFileCache.hpp"

using hieragg::hier::ParsedFileCache;

TEST(ParsedFileCache, ParsesOnceUntilTheFileChanges) {
    const std::string p = testing::TempDir() + "hieragg_cache_" + std::to_string(getpid());
    std::ofstream(p) << "one";
    ParsedFileCache<std::string> cache;
    int parses = 0;
    auto parse = [&](const std::string& path) {
        ++parses;
        std::string text = hieragg::aggtree::readInputFile(path);
        if (text == "bad") throw std::runtime_error("bad content");
        return text;
    };
    EXPECT_EQ(*cache.get(p, parse), "one");
    EXPECT_EQ(*cache.get(p, parse), "one");
    EXPECT_EQ(parses, 1);
    std::ofstream(p) << "three";  // another size: another identity
    EXPECT_EQ(*cache.get(p, parse), "three");
    EXPECT_EQ(parses, 2);
    std::ofstream(p) << "bad";
    EXPECT_THROW(cache.get(p, parse), std::runtime_error);
    EXPECT_THROW(cache.get(p, parse), std::runtime_error);
    EXPECT_EQ(parses, 4) << "errors are not cached";
    std::remove(p.c_str());
}
