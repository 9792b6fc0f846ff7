#include "hieragg/ReproducibleSum.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace hieragg {
namespace repro {

namespace {

// Bit positions count from 2^-1074 (the least subnormal double): position P has weight 2^(P-1074).
constexpr int kDoubleMinPos = 0;
constexpr int kFloatMinPos = 1074 - 149;  // the least subnormal float, 2^-149

// Makes `top` at least t, dropping the windows that fall below the kept range.
inline void raiseTop(Accumulator& a, int32_t t) {
    if (a.top == kEmpty) {
        a.top = t;
        for (int i = 0; i < kBins; ++i) a.bin[i] = 0;
        return;
    }
    if (t <= a.top) return;
    const int d = t - a.top;
    for (int i = kBins - 1; i >= 0; --i) a.bin[i] = i - d >= 0 ? a.bin[i - d] : 0;
    a.top = t;
}

// The kept value as a sign and a 5-limb magnitude; rounding reads bits from it.
struct Magnitude {
    uint32_t limb[kBins + 2] = {};
    int base = 0;  // window of limb 0
    bool negative = false;

    uint64_t limbAt(int i) const { return i >= 0 && i < kBins + 2 ? limb[i] : 0; }
    // Bits [pos, pos+63] (positions relative to limb 0; negative positions read 0).
    uint64_t bits64(int pos) const {
        const int q = pos >= 0 ? pos / 32 : -((-pos + 31) / 32);
        const int r = pos - 32 * q;
        unsigned __int128 v = static_cast<unsigned __int128>(limbAt(q)) |
                              static_cast<unsigned __int128>(limbAt(q + 1)) << 32 |
                              static_cast<unsigned __int128>(limbAt(q + 2)) << 64;
        return static_cast<uint64_t>(v >> r);
    }
    bool bit(int pos) const { return pos >= 0 && (bits64(pos) & 1u); }
    // Any bit in [0, pos).
    bool anyBelow(int pos) const {
        for (int i = 0; i < kBins + 2 && 32 * i < pos; ++i) {
            const int width = pos - 32 * i;
            const uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
            if (limb[i] & mask) return true;
        }
        return false;
    }
    int highest() const {  // -1 if zero
        for (int i = kBins + 1; i >= 0; --i)
            if (limb[i]) return 32 * i + 31 - __builtin_clz(limb[i]);
        return -1;
    }
};

Magnitude magnitudeOf(const Accumulator& a) {
    Magnitude m;
    m.base = a.top - (kBins - 1);
    __int128 carry = 0;
    for (int j = 0; j < kBins; ++j) {
        const __int128 t = carry + a.bin[kBins - 1 - j];
        m.limb[j] = static_cast<uint32_t>(t);
        carry = t >> 32;  // arithmetic shift: carry keeps the sign
    }
    m.limb[kBins] = static_cast<uint32_t>(carry);
    m.limb[kBins + 1] = static_cast<uint32_t>(carry >> 32);
    m.negative = carry < 0;
    if (m.negative) {  // two's complement -> magnitude
        uint64_t c = 1;
        for (int i = 0; i < kBins + 2; ++i) {
            const uint64_t t = static_cast<uint64_t>(static_cast<uint32_t>(~m.limb[i])) + c;
            m.limb[i] = static_cast<uint32_t>(t);
            c = t >> 32;
        }
    }
    return m;
}

enum class Kind { Zero, Finite, Inf, NaN };
struct Rounded {
    Kind kind = Kind::Zero;
    bool negative = false;
    uint64_t mantissa = 0;  // value = mantissa * 2^exponent
    int exponent = 0;
};

// Rounds the magnitude `u` (bit 0 at absolute position `shift`) once to `precision`
// bits with least position `minPos` (to nearest, ties to even).
template <class Bits>
Rounded roundBits(const Bits& u, int h, int shift, bool negative, int precision, int minPos) {
    Rounded r;
    r.negative = negative;
    const int lowAbs = std::max(h + shift - (precision - 1), minPos);
    const int low = lowAbs - shift;
    const int width = h - low + 1;
    uint64_t mant = width > 0 ? u.bits64(low) & ((width >= 64 ? ~0ull : (1ull << width) - 1)) : 0;
    const bool roundBit = u.bit(low - 1);
    const bool sticky = u.anyBelow(low - 1);
    if (roundBit && (sticky || (mant & 1u))) ++mant;
    if (mant == 0) return r;  // below half the least representable value
    r.kind = Kind::Finite;
    r.mantissa = mant;
    r.exponent = lowAbs - 1074;
    return r;
}

// A magnitude below 2^127 (the common case): the same reads on one 128-bit integer.
struct Wide {
    unsigned __int128 v;
    uint64_t bits64(int pos) const {
        if (pos >= 128) return 0;
        return pos >= 0 ? static_cast<uint64_t>(v >> pos) : static_cast<uint64_t>(v << -pos);
    }
    bool bit(int pos) const { return pos >= 0 && pos < 128 && ((v >> pos) & 1u); }
    bool anyBelow(int pos) const {
        if (pos <= 0) return false;
        if (pos >= 128) return v != 0;
        return (v & ((static_cast<unsigned __int128>(1) << pos) - 1)) != 0;
    }
};

int highestBit(unsigned __int128 v) {
    const uint64_t hi = static_cast<uint64_t>(v >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(static_cast<uint64_t>(v));
}

// Rounds once to `precision` bits with least position `minPos` (to nearest, ties to even).
Rounded roundTo(const Accumulator& a, int precision, int minPos) {
    Rounded r;
    const bool posInf = a.flags & kSawPosInf, negInf = a.flags & kSawNegInf;
    if ((a.flags & kSawNaN) || (posInf && negInf)) {
        r.kind = Kind::NaN;
        return r;
    }
    if (posInf || negInf) {
        r.kind = Kind::Inf;
        r.negative = negInf;
        return r;
    }
    const bool zeroIsNegative = !(a.flags & kSawNotNegZero);
    r.negative = zeroIsNegative;
    if (a.top == kEmpty) return r;
    const int shift = kWindowBits * (a.top - (kBins - 1));  // absolute position of the lowest bin's bit 0
    static_assert(kBins == 3, "the 128-bit path sums exactly three bins");
    // sum = bin0*2^64 + bin1*2^32 + bin2 fits a signed 128-bit integer while |bin0| < 2^62.
    if (a.bin[0] < (int64_t{1} << 62) && a.bin[0] > -(int64_t{1} << 62)) {
        // Multiplied, not shifted: a left shift of a negative value is undefined before C++20.
        const __int128 sum = static_cast<__int128>(a.bin[0]) * (static_cast<__int128>(1) << 64) +
                             static_cast<__int128>(a.bin[1]) * (static_cast<__int128>(1) << 32) + a.bin[2];
        if (sum == 0) return r;  // exact cancellation: +0.0 as IEEE's x + (-x)
        const bool neg = sum < 0;
        const Wide u{neg ? static_cast<unsigned __int128>(-sum) : static_cast<unsigned __int128>(sum)};
        return roundBits(u, highestBit(u.v), shift, neg, precision, minPos);
    }
    const Magnitude m = magnitudeOf(a);
    const int h = m.highest();
    if (h < 0) return r;
    return roundBits(m, h, shift, m.negative, precision, minPos);
}

}  // namespace

Accumulator emptyAccumulator() {
    Accumulator a;
    for (int i = 0; i < kBins; ++i) a.bin[i] = 0;
    a.top = kEmpty;
    a.flags = 0;
    return a;
}

void add(Accumulator& acc, double x) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const bool neg = bits >> 63;
    const uint32_t e = static_cast<uint32_t>(bits >> 52) & 0x7ffu;
    const uint64_t frac = bits & ((1ull << 52) - 1);
    if (e == 0x7ffu) {
        acc.flags |= kSawNotNegZero | (frac ? kSawNaN : neg ? kSawNegInf : kSawPosInf);
        return;
    }
    if (e == 0 && frac == 0) {
        if (!neg) acc.flags |= kSawNotNegZero;
        return;
    }
    acc.flags |= kSawNotNegZero;
    const uint64_t m = e == 0 ? frac : (frac | (1ull << 52));
    const int low = e == 0 ? 0 : static_cast<int>(e) - 1;  // position of m's bit 0
    const int high = low + 63 - __builtin_clzll(m);
    raiseTop(acc, high / kWindowBits);
    const int w0 = low / kWindowBits;
    const unsigned __int128 v = static_cast<unsigned __int128>(m) << (low % kWindowBits);
    for (int k = 0; k < 3; ++k) {
        const int64_t slice = static_cast<int64_t>(static_cast<uint64_t>(v >> (32 * k)) & 0xffffffffu);
        const int idx = acc.top - (w0 + k);
        if (slice && idx >= 0 && idx < kBins) acc.bin[idx] += neg ? -slice : slice;
    }
}

void merge(Accumulator& dst, const Accumulator& src) {
    dst.flags |= src.flags;
    if (src.top == kEmpty) return;
    raiseTop(dst, src.top);
    const int d = dst.top - src.top;
    for (int j = 0; j + d < kBins; ++j) dst.bin[j + d] += src.bin[j];
}

namespace {
// A rounded result that is not a finite non-zero number (NaN, +-inf, +-0) in F.
template <class F>
std::optional<F> notFinite(const Rounded& r) {
    switch (r.kind) {
    case Kind::NaN: return std::numeric_limits<F>::quiet_NaN();
    case Kind::Inf: return r.negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
    case Kind::Zero: return r.negative ? -F(0) : F(0);
    case Kind::Finite: break;
    }
    return std::nullopt;
}
}  // namespace

double toDouble(const Accumulator& acc) {
    const Rounded r = roundTo(acc, 53, kDoubleMinPos);
    if (const std::optional<double> v = notFinite<double>(r)) return *v;
    // Assemble the bits directly: value = mantissa * 2^exponent, mantissa <= 2^53.
    uint64_t mant = r.mantissa;
    int low = r.exponent + 1074;  // absolute position of the mantissa's bit 0
    if (mant >> 53) {             // rounding carried out of 53 bits
        mant >>= 1;
        ++low;
    }
    uint64_t bits;
    if (mant < (1ull << 52)) {
        bits = mant;  // subnormal (low == 0)
    } else {
        const uint64_t e = static_cast<uint64_t>(low) + 1;
        bits = e >= 0x7ff ? (0x7ffull << 52) : (e << 52 | (mant & ((1ull << 52) - 1)));
    }
    if (r.negative) bits |= 1ull << 63;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

float toFloat(const Accumulator& acc) {
    const Rounded r = roundTo(acc, 24, kFloatMinPos);
    if (const std::optional<float> v = notFinite<float>(r)) return *v;
    // Exact in double (24 bits, exponent >= -149); exact in float unless above FLT_MAX.
    const double v = std::ldexp(static_cast<double>(r.mantissa), r.exponent);
    const float f = v > static_cast<double>(FLT_MAX) ? HUGE_VALF : static_cast<float>(v);
    return r.negative ? -f : f;
}

void fromDoubles(const double* in, size_t n, Accumulator* out) {
    for (size_t i = 0; i < n; ++i) {
        out[i] = emptyAccumulator();
        add(out[i], in[i]);
    }
}

void fromFloats(const float* in, size_t n, Accumulator* out) {
    for (size_t i = 0; i < n; ++i) {
        out[i] = emptyAccumulator();
        add(out[i], static_cast<double>(in[i]));
    }
}

void mergeAll(const Accumulator* src, Accumulator* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) merge(dst[i], src[i]);
}

void toDoubles(const Accumulator* in, size_t n, double* out) {
    for (size_t i = 0; i < n; ++i) out[i] = toDouble(in[i]);
}

void toFloats(const Accumulator* in, size_t n, float* out) {
    for (size_t i = 0; i < n; ++i) out[i] = toFloat(in[i]);
}

}  // namespace repro
}  // namespace hieragg
