// What every algorithm unit (coll_hier/src/algorithms/<family>/<name>.cpp) needs to write
// its rows: the registry types, the cost query, and the usual sets of tunables.
#pragma once
#include "algorithms/CostQuery.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

namespace hieragg::hier::units {

using namespace model;  // the shared cost models (coll_hier/src/model/)
using K = TreeShape::Kind;
constexpr unsigned kAny = kServesAnyLevel;
constexpr unsigned kTree = kTunesRadix | kTunesSegment;
constexpr unsigned kPulsed = kTunesRadix | kTunesSegment | kTunesWindow;

}  // namespace hieragg::hier::units
