/*
 * Layout check: the shim is compiled against Open MPI's internal headers (and,
 * for headers Debian omits, against cmake/ompi-compat), so a header that does
 * not match the installed libmpi would make the shim read communicators and
 * requests at wrong offsets. Open MPI's classes record the size libmpi was
 * compiled with; compare it with the size the shim sees for every structure
 * it reads or extends.
 */
#include "coll_hieragg.h"

#include <stdio.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/util/info.h"

typedef struct layout_entry {
    const char* name;
    size_t ours;
    const opal_class_t* libmpi;
} layout_entry;

int mca_coll_hieragg_layout_check(char* mismatch, size_t len) {
    const layout_entry entries[] = {
        {"ompi_communicator_t", sizeof(ompi_communicator_t), OBJ_CLASS(ompi_communicator_t)},
        {"ompi_request_t", sizeof(ompi_request_t), OBJ_CLASS(ompi_request_t)},
        {"ompi_coll_base_nbc_request_t", sizeof(ompi_coll_base_nbc_request_t),
         OBJ_CLASS(ompi_coll_base_nbc_request_t)},
        {"mca_coll_base_module_t", sizeof(mca_coll_base_module_t), OBJ_CLASS(mca_coll_base_module_t)},
        {"ompi_datatype_t", sizeof(ompi_datatype_t), OBJ_CLASS(ompi_datatype_t)},
        {"ompi_op_t", sizeof(ompi_op_t), OBJ_CLASS(ompi_op_t)},
        {"opal_info_t", sizeof(opal_info_t), OBJ_CLASS(opal_info_t)},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; ++i) {
        if (entries[i].ours != entries[i].libmpi->cls_sizeof) {
            snprintf(mismatch, len, "%s is %zu bytes in the headers hieragg was built with but %zu in this Open MPI",
                     entries[i].name, entries[i].ours, entries[i].libmpi->cls_sizeof);
            return 0;
        }
    }
    return 1;
}
