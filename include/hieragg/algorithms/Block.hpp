// One block of a data-movement collective: where it lives and how it is typed.
// Algorithms take vectors of blocks so the same code serves the user's typed
// buffers and the packed-byte temporaries of intermediate ranks.
#pragma once
#include "hieragg/Schedule.hpp"

namespace hieragg {

struct Block {
    BufRef buf;
    TypeRef type;
};

// `bytes` of packed data at `buf`.
inline Block packedBlock(BufRef buf, size_t bytes) { return {buf, {kPackedType, bytes}}; }

}  // namespace hieragg
