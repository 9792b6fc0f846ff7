// What an MPI_T reader needs to interpret coll_hieragg_<coll>_algorithm_calls: the
// position of an algorithm name in the coll_hieragg_<coll>_algorithm control variable's
// enum. Uses only the standard MPI_T interface (header-only), so any tool can include it;
// hieragg-tune and the MPI_T tests do.
#pragma once
#include <mpi.h>

#include <string>

namespace hieragg::mpit {

// Value of `algo` in coll_hieragg_<coll>_algorithm's enum minus one (0 is "auto"), which is
// its index in the coll_hieragg_<coll>_algorithm_calls values; -1 if absent. MPI_T must be
// initialised.
inline int algorithmPosition(const std::string& coll, const std::string& algo) {
    int cidx = -1, nenum = 0, len, verb, bind, scope;
    char name[256];
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_index(("coll_hieragg_" + coll + "_algorithm").c_str(), &cidx) != MPI_SUCCESS) return -1;
    len = sizeof name;
    if (MPI_T_cvar_get_info(cidx, name, &len, &verb, &dt, &en, nullptr, nullptr, &bind, &scope) != MPI_SUCCESS)
        return -1;
    len = sizeof name;
    MPI_T_enum_get_info(en, &nenum, name, &len);
    for (int i = 0; i < nenum; ++i) {
        int value = 0;
        char item[128];
        int ilen = sizeof item;
        MPI_T_enum_get_item(en, i, &value, item, &ilen);
        if (algo == item) return value - 1;
    }
    return -1;
}

}  // namespace hieragg::mpit
