#include "DataMovement.hpp"

#include <algorithm>

#include "hieragg/algorithms/PackedSubtrees.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::recipes::dm {

Levels::Levels(const CollCall& c) : call(c), flat(!useHierarchy(c)) {}

int Levels::top() const { return flat ? 0 : call.hierarchy->levels(); }

Group Levels::space(int level, int rank, int root, int* rootIdx) const {
    if (flat) {
        *rootIdx = root >= 0 ? root : 0;
        return Group::whole(call.size, rank);
    }
    hier::SpaceGroup sg = hier::spaceGroup(*call.hierarchy, level, rank, root);
    *rootIdx = sg.rootIdx;
    return sg.group;
}

std::vector<int> Levels::groupOf(int level, int rank, int /*root*/) const {
    if (level < 0) return {rank};
    if (level >= top()) {
        std::vector<int> all(static_cast<size_t>(call.size));
        for (int r = 0; r < call.size; ++r) all[r] = r;
        return all;
    }
    const hier::Hierarchy& h = *call.hierarchy;
    return h.groupMembers(level, h.groupOf(level, rank));
}

std::vector<Stage> stagesOf(const Levels& lv, int rank, int root, int topLevel,
                            const std::vector<size_t>& rankBytes) {
    std::vector<Stage> stages;
    for (int level = 0; level <= topLevel; ++level) {
        Stage s;
        s.level = level;
        s.group = lv.space(level, rank, root, &s.rootIdx);
        if (s.group.size() <= 1 || s.group.me < 0) continue;
        s.memberBytes.reserve(s.group.ranks.size());
        for (int m : s.group.ranks) {
            size_t bytes = 0;
            for (int r : lv.groupOf(level - 1, m, root)) bytes += rankBytes[r];
            s.memberBytes.push_back(bytes);
        }
        stages.push_back(std::move(s));
    }
    return stages;
}

namespace {
void appendOrder(const Levels& lv, int rank, int root, int level, std::vector<int>& out) {
    if (level < 0) {
        out.push_back(rank);
        return;
    }
    int rootIdx = 0;
    Group g = lv.space(level, rank, root, &rootIdx);
    if (g.size() <= 1 || g.me < 0) {
        appendOrder(lv, rank, root, level - 1, out);
        return;
    }
    const int n = g.size();
    for (int j = 0; j < n; ++j) appendOrder(lv, g.ranks[(rootIdx + j) % n], root, level - 1, out);
}
}  // namespace

std::vector<int> collectionOrder(const Levels& lv, int rank, int root, int topLevel) {
    std::vector<int> order;
    order.reserve(static_cast<size_t>(lv.call.size));
    appendOrder(lv, rank, root, topLevel, order);
    return order;
}

Deps copyRuns(ScheduleBuilder& b, const std::vector<int>& order, int skip,
              const std::vector<size_t>& rankBytes, BufRef packed,
              const std::function<Block(int)>& typedOf, const std::function<bool(int, int)>& adjacent,
              bool toTyped, const Deps& deps) {
    Deps done;
    size_t offset = 0;
    size_t i = 0;
    while (i < order.size()) {
        const int first = order[i];
        if (first == skip) {
            offset += rankBytes[first];
            ++i;
            continue;
        }
        Block run = typedOf(first);
        size_t bytes = rankBytes[first];
        size_t j = i + 1;
        while (j < order.size() && order[j] != skip && adjacent(order[j - 1], order[j])) {
            run.type.count += typedOf(order[j]).type.count;
            bytes += rankBytes[order[j]];
            ++j;
        }
        const BufRef at = packed.at(static_cast<ptrdiff_t>(offset));
        if (toTyped)
            done.add(b.copy(at, {kPackedType, bytes}, run.buf, run.type, deps));
        else
            done.add(b.copy(run.buf, run.type, at, {kPackedType, bytes}, deps));
        offset += bytes;
        i = j;
    }
    return done;
}

void emitHierAllgather(ScheduleBuilder& b, const Levels& lv, const std::vector<size_t>& rankBytes,
                       Block own, bool ownInPlace, const std::function<Block(int)>& typedOf,
                       const std::function<bool(int, int)>& adjacent, size_t segmentBytes) {
    const CollCall& c = lv.call;
    const int top = lv.top();
    size_t totalBytes = 0;
    for (size_t r : rankBytes) totalBytes += r;
    if (totalBytes == 0) return;
    // Stages below the leader space gather to the outermost leaders (unrooted: lowest rank).
    std::vector<Stage> stages = stagesOf(lv, c.rank, -1, top - 1, rankBytes);
    std::vector<Stage> leaderStage = stagesOf(lv, c.rank, -1, top, rankBytes);
    const bool inLeaderSpace = !leaderStage.empty() && leaderStage.back().level == top;
    int leaderRootIdx = 0;
    const bool outerLeader = lv.space(top, c.rank, -1, &leaderRootIdx).me >= 0;

    // The packed whole: leaders' collections in leader-space member order.
    BufRef all = b.temp(totalBytes);
    size_t myOffset = 0;
    std::vector<Block> segments;
    if (inLeaderSpace) {
        const Stage& ls = leaderStage.back();
        size_t offset = 0;
        for (int i = 0; i < ls.group.size(); ++i) {
            if (i == ls.group.me) myOffset = offset;
            segments.push_back(packedBlock(all.at(static_cast<ptrdiff_t>(offset)), ls.memberBytes[i]));
            offset += ls.memberBytes[i];
        }
    }
    // An outermost leader gathers straight into its segment; inner leaders use a temp.
    BufRef work = all.at(static_cast<ptrdiff_t>(myOffset));
    // Allgather is not model-driven (yet): binomial trees, as the registry's entry says.
    std::vector<MemberTree> trees;
    for (const auto& s : stages) trees.push_back(TreeShape::knomial(2).build(s.group.size(), s.rootIdx));
    if (!outerLeader) {
        size_t workBytes = 0;
        for (size_t i = 0; i < stages.size(); ++i)
            workBytes = std::max(workBytes,
                                 PackedSubtrees{trees[i], stages[i].group, stages[i].memberBytes}.workBytes(false));
        if (workBytes) work = b.temp(workBytes);
    }
    StepId ready = kNoStep;
    for (size_t i = 0; i < stages.size(); ++i) {
        const Stage& s = stages[i];
        ready = PackedSubtrees{trees[i], s.group, s.memberBytes}
                    .gather(b, own, i > 0, work, ready, stageChannel(static_cast<uint32_t>(s.level)))
                    .ready;
    }
    if (outerLeader && stages.empty())  // a leader alone in its subspace
        ready = b.copy(own.buf, own.type, work, {kPackedType, rankBytes[c.rank]});
    if (inLeaderSpace)
        ready = RingAllgather{}.emit(b, leaderStage.back().group, segments, ready,
                                     stageChannel(static_cast<uint32_t>(top))).ready;
    // Broadcast the packed whole top-down; segmented so it pipelines through levels.
    for (int level = top - 1; level >= 0; --level) {
        int rootIdx = 0;
        Group g = lv.space(level, c.rank, -1, &rootIdx);
        if (g.size() <= 1 || g.me < 0) continue;
        const MemberTree t = TreeShape::knomial(2).build(g.size(), rootIdx);
        ready = TreeBcast{t, segmentBytes}.emit(b, g, all, {kPackedType, totalBytes}, 1, ready, {},
                                                stageChannel(static_cast<uint32_t>(top + 1 + level))).ready;
    }
    // Every rank knows the layout: concatenate the leaders' collection orders.
    std::vector<int> order;
    order.reserve(rankBytes.size());
    for (int g = 0; g < lv.call.hierarchy->groupCount(top - 1); ++g) {
        const int leader = lv.call.hierarchy->groupMembers(top - 1, g).front();
        std::vector<int> part = collectionOrder(lv, leader, -1, top - 1);
        order.insert(order.end(), part.begin(), part.end());
    }
    copyRuns(b, order, ownInPlace ? c.rank : -1, rankBytes, all, typedOf, adjacent, true, ready);
}

bool rootRunsAreContiguous(int commSize, const Stage& s, const MemberTree& t) {
    if (s.group.size() != commSize || t.subtreeEnd.size() != static_cast<size_t>(t.size())) return false;
    for (int m = 0; m < s.group.size(); ++m)
        if (s.group.ranks[m] != m) return false;
    for (int k : t.children[s.rootIdx]) {
        const int v = t.virtualOf(k);
        if (t.indexOf(v) + (t.subtreeEnd[v] - v) > commSize) return false;
    }
    return true;
}

}  // namespace hieragg::recipes::dm
