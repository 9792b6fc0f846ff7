#include "CallWindow.hpp"

namespace hieragg {

bool CallWindow::fitsPersistent(uint32_t id, bool inter, uint32_t w) const {
    for (uint32_t other : persistent_) {
        if (other == id) continue;
        const uint32_t apart = other > id ? other - id : id - other;
        if (inter ? apart >= w : apart % w == 0) return false;
    }
    return true;
}

}  // namespace hieragg
