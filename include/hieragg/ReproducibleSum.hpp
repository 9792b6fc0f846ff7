// Reproducible floating-point summation (coll_hieragg_reproducible=strong).
//
// An Accumulator holds an exact partial sum of doubles (or floats, which are
// doubles exactly) as integer sums over fixed 32-bit windows of the binary
// exponent range ("bins", in the style of ReproBLAS's binned numbers). Each
// contributed value is cut into slices along those fixed window boundaries, and
// each bin is the exact integer sum of its slices, so a bin's content does not
// depend on the order of additions. Only the kBins windows below the highest
// window any contribution reached ("top") are kept; top is the maximum over the
// contributions, so which windows are kept is also order independent. Hence
// merge() is associative and commutative bit for bit, and toDouble()/toFloat()
// round the kept value once (to nearest, ties to even): the result depends only
// on the multiset of contributions. See docs/reproducibility.md.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hieragg {
namespace repro {

constexpr int kBins = 3;
constexpr int kWindowBits = 32;
constexpr int32_t kEmpty = -1;  // top of an accumulator that has seen no finite nonzero value

// Flags: what cannot live in the bins.
enum : uint32_t {
    kSawNaN = 1u,
    kSawPosInf = 2u,
    kSawNegInf = 4u,
    kSawNotNegZero = 8u,  // something other than -0.0 was added: an exact zero sum is +0.0
};

// 32 bytes; travels between ranks as raw bytes (same layout on every rank of a job).
struct Accumulator {
    int64_t bin[kBins];  // bin[i]: exact sum of the slices in window top - i (units 2^(32*window-1074))
    int32_t top;         // highest window of any contributed finite nonzero value, or kEmpty
    uint32_t flags;
};
static_assert(sizeof(Accumulator) == 32, "the shim's accumulator datatype is 32 bytes");

// The neutral element (it rounds to -0.0, the identity of IEEE addition).
Accumulator emptyAccumulator();
void add(Accumulator& acc, double x);
// dst = dst + src (associative and commutative, bit for bit).
void merge(Accumulator& dst, const Accumulator& src);
// The kept sum rounded once to nearest-even; inf/NaN as IEEE addition gives them.
double toDouble(const Accumulator& acc);
float toFloat(const Accumulator& acc);

// Arrays: out[i] holds exactly in[i].
void fromDoubles(const double* in, size_t n, Accumulator* out);
void fromFloats(const float* in, size_t n, Accumulator* out);
void mergeAll(const Accumulator* src, Accumulator* dst, size_t n);
void toDoubles(const Accumulator* in, size_t n, double* out);
void toFloats(const Accumulator* in, size_t n, float* out);

}  // namespace repro
}  // namespace hieragg
