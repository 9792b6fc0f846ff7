#include "CalibrationRounds.hpp"

#include <algorithm>

namespace hieragg::calibration {

std::vector<Round> roundPlan(const std::vector<size_t>& sizes, size_t eagerBytes, bool duplex) {
    std::vector<Round> out;
    for (int rep = 0; rep < kSmallReps; ++rep) {
        for (size_t b : sizes)
            if (rep < kReps || !(eagerBytes > 0 && b >= eagerBytes))
                for (int side : {0, 1}) out.push_back({Round::PingPong, b, side});
        for (int side : {0, 1}) out.push_back({Round::Stream, kSmallBytes, side});
    }
    for (int i = 0; i < kExchangeRounds; ++i) out.push_back({Round::Exchange, kSmallBytes, 0});
    if (duplex && !sizes.empty())
        for (int i = 0; i < kDuplexRounds; ++i)
            out.push_back({Round::Duplex, *std::max_element(sizes.begin(), sizes.end()), 0});
    return out;
}

}  // namespace hieragg::calibration
