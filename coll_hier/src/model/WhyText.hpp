// The numbers in a StageChoice's `why` (Plan::describe): one printf format per value.
#pragma once
#include <cstdio>
#include <string>

namespace hieragg::hier::model {

inline std::string fmt(const char* f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

}  // namespace hieragg::hier::model
