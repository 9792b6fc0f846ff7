// Hysteresis of the chooser (CostParams::closeFraction, Selection.cpp): with measured
// parameters, rows whose predictions are within the calibration's noise of the cheapest
// are the same within what the measurement knows, and the earliest in the chooser's fixed
// order is kept. Two jobs whose measured alpha differs by a few percent around a point where
// two rows' predictions cross then run the same row; without a band (the defaults) the
// choice flips there. Checked on every collective's 8-rank layouts around each crossing
// of a sweep of the network alpha.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {
hier::CostParams network(double alphaUs, double betaNs, double band) {
    hier::CostParams p = hier::CostParams::defaults();
    p.link[hier::kLinkNetwork].alpha_us = alphaUs;
    p.link[hier::kLinkNetwork].beta_us_per_byte = betaNs / 1000;
    p.closeFraction = band;
    return p;
}

CollCall call(hieragg_coll_kind kind, const hier::Hierarchy& h, size_t bytes) {
    CollCall c = baseCall(kind, 0, h.commSize(), &h);
    c.args.scount = c.args.rcount = kind == HIERAGG_BARRIER ? 0 : bytes / 8;
    c.args.op_commutative = 1;
    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
    return c;
}

std::string label(const hier::Plan& plan) {
    std::string s = std::to_string(static_cast<int>(plan.mode)) + ":";
    for (const hier::StageChoice& st : plan.stages) s += std::string(st.algo ? st.algo->name : "?") + "/";
    return s;
}
}  // namespace

TEST(ClosePredictions, KeepTheEarlierRowAroundEveryCrossing) {
    const double band = 0.10, wobble = 0.03;  // jobs' alphas 3% apart, a 10% band
    const hier::Hierarchy layouts[] = {virtualNodes(8, 2), roundRobin(8, 2)};
    int crossings = 0, kept = 0;
    for (const hier::Hierarchy& h : layouts)
        for (hieragg_coll_kind kind : {HIERAGG_BCAST, HIERAGG_REDUCE, HIERAGG_ALLREDUCE, HIERAGG_ALLGATHER,
                                       HIERAGG_REDUCE_SCATTER_BLOCK, HIERAGG_SCATTER, HIERAGG_GATHER})
            for (size_t bytes : {size_t{8}, size_t{65536}, size_t{1} << 20}) {
                const CollCall c = call(kind, h, bytes);
                std::string last;
                for (double a = 5; a < 2000; a *= 1.01) {
                    const std::string now = label(hier::choosePlan(c, network(a, 8.6, 0)));
                    if (!last.empty() && now != last) {
                        ++crossings;
                        // Around the crossing, jobs measuring alpha within +-3% choose alike.
                        const hier::Plan ref = hier::choosePlan(c, network(a, 8.6, band));
                        for (double f : {1 - wobble, 1 - wobble / 2, 1 + wobble / 2, 1 + wobble}) {
                            const hier::Plan p = hier::choosePlan(c, network(a * f, 8.6, band));
                            EXPECT_EQ(label(p), label(ref))
                                << hier::collectiveName(kind) << " " << bytes << " B, alpha " << a * f << "\n"
                                << p.describe() << "\nvs\n" << ref.describe();
                            // Never more than the band over the cheapest.
                            const hier::Plan cheapest = hier::choosePlan(c, network(a * f, 8.6, 0));
                            EXPECT_LE(p.predUs, cheapest.predUs * (1 + band) + 1e-9) << p.describe();
                            if (label(p) != label(cheapest)) {
                                ++kept;
                                EXPECT_NE(p.describe().find("within the calibration's noise (10%)"), std::string::npos)
                                    << p.describe();
                            }
                        }
                    }
                    last = now;
                }
            }
    // The sweep crosses rows, and the band decided some of the cells.
    EXPECT_GE(crossings, 10);
    EXPECT_GT(kept, 0);
}

// Without a band (the defaults, nothing measured) the cheapest row wins, ties to the earlier.
TEST(ClosePredictions, NoBandIsTheCheapest) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    for (double a : {3.0, 50.0, 300.0}) {
        const hier::Plan p = hier::choosePlan(call(HIERAGG_BCAST, h, 65536), network(a, 8.6, 0));
        EXPECT_EQ(p.describe().find("within the calibration's noise"), std::string::npos) << p.describe();
    }
}
