// One hierarchy model: the decomposition (hier::Hierarchy) seen as the nested
// grouping coll_aggtree's tree builders take (aggtree::ProcessHierarchy). The
// group ids are copied as they are; nesting, leaders and validation stay in
// their own modules.
#pragma once
#include "hieragg/aggtree/ProcessHierarchy.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

aggtree::ProcessHierarchy toProcessHierarchy(const Hierarchy& h);

}  // namespace hieragg::hier
