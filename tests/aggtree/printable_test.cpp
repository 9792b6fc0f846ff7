#include <gtest/gtest.h>

#include <string>

#include "hieragg/aggtree/Printable.hpp"

using hieragg::aggtree::printable;

TEST(Printable, KeepsPlainTextAndEscapesEverythingElse) {
    EXPECT_EQ(printable("virtual:2,node"), "virtual:2,node");
    EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");  // a NUL does not end the text
    EXPECT_EQ(printable("tab\there\n"), "tab\\x09here\\x0a");
    EXPECT_EQ(printable("\x7f\x80\xff"), "\\x7f\\x80\\xff");
    EXPECT_EQ(printable(printable(std::string("a\0b", 3))), "a\\x00b");  // idempotent
}

TEST(Printable, CutsLongTextVisibly) {
    EXPECT_EQ(printable(std::string(10, 'x'), 4), "xxxx...");
    EXPECT_EQ(printable(std::string(4, 'x'), 4), "xxxx");
}
