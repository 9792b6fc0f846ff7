// exactShapeUs against exactTreeUs on the tree TreeShape::build gives (root 0), for the
// k-nomial, k-ary and chain shapes, every model shape, sizes 1..300 and the radices the
// stage rows scan. Equal as doubles: bestRadix compares them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hieragg/algorithms/MemberTree.hpp"
#include "model/TreeModel.hpp"

using namespace hieragg;
using namespace hieragg::hier;

TEST(ExactShape, EqualsTheBuiltTree) {
    int compared = 0;
    for (const model::Shape shape : {model::Shape::Bcast, model::Shape::Reduce, model::Shape::Allreduce,
                                     model::Shape::Barrier, model::Shape::Gather}) {
        model::Load ld{shape};
        ld.bytes = 65536;
        ld.pulseBytes = 8192;
        ld.pulses = 8;
        ld.elemBytes = 8;
        for (int n = 1; n <= 300; n += n < 40 ? 1 : 13) {
            std::vector<TreeShape> trees = {TreeShape::chain()};
            for (int k = 2; k <= 64; k = k < 16 ? k + 1 : k * 2) trees.push_back(TreeShape::knomial(k));
            for (int k = 1; k <= 64; k = k < 16 ? k + 1 : k * 2) trees.push_back(TreeShape::kary(k));
            for (const TreeShape& t : trees) {
                for (const aggtree::HopPrice hop : {aggtree::HopPrice{3.7, 0.0, 0.291}, aggtree::HopPrice{3.7, 11.3, 0.291}})
                    EXPECT_EQ(model::exactShapeUs(t, n, ld, hop), model::exactTreeUs(t.build(n, 0), ld, hop))
                    << t.name() << " k " << t.k << " n " << n << " shape " << static_cast<int>(shape);
                compared += 2;
            }
        }
    }
    EXPECT_GT(compared, 2 * 5 * 60 * 30);
}
