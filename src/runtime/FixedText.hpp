// A number written with a fixed count of decimals, as the verbose calibration lines print
// their terms (LinkCalibrationStage.cpp, ReduceRateProbe.cpp).
#pragma once
#include <cstdio>
#include <string>

namespace hieragg {

inline std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace hieragg
