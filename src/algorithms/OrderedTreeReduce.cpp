#include "hieragg/algorithms/OrderedTreeReduce.hpp"

#include <utility>

namespace hieragg {

namespace {
// The tree this member works in. Rank order: the members left of the root and those
// right of it each form an in-order tree over their index range, whose top sends to
// the root; otherwise one tree rooted at the root.
struct Placement {
    int parent = -1;            // group index (-1: the top of my range's tree)
    std::vector<int> children;  // group indices, combine order
    int sendTo = -1;            // where my subtree's product goes (-1: I am the root)
};
Placement place(const OrderedTreeReduce& red, int n, int me, int rootIdx) {
    Placement p;
    if (!red.rankOrder) {
        const MemberTree owned = red.tree ? MemberTree{} : red.shape.build(n, rootIdx);
        const MemberTree& t = red.tree ? *red.tree : owned;
        p.parent = t.parent[me];
        p.children = t.children[me];
        p.sendTo = p.parent;
        return p;
    }
    if (me == rootIdx) return p;
    const int lo = me < rootIdx ? 0 : rootIdx + 1;
    const int hi = me < rootIdx ? rootIdx : n;
    const MemberTree t = red.shape.build(hi - lo, 0);
    for (int c : t.children[me - lo]) p.children.push_back(c + lo);
    p.parent = t.parent[me - lo] >= 0 ? t.parent[me - lo] + lo : -1;
    p.sendTo = p.parent >= 0 ? p.parent : rootIdx;
    return p;
}
}  // namespace

int OrderedTreeReduce::scratchCount(const Group& g, int rootIdx) const {
    const int n = g.size();
    if (g.me < 0 || n <= 1) return 0;
    if (g.me != rootIdx || !rankOrder) return static_cast<int>(place(*this, n, g.me, rootIdx).children.size());
    // Left product, right product; with no right part a_root needs a writable copy.
    return rootIdx > 0 ? 2 : 1;
}

OrderedTreeReduce::Result OrderedTreeReduce::emit(ScheduleBuilder& b, const Group& g, int rootIdx,
                                                          const Pulse& p) const {
    Result r;
    const int n = g.size();
    if (g.me < 0) return r;
    auto same = [](BufRef x, BufRef y) { return x.slot == y.slot && x.offset == y.offset; };
    auto deliver = [&](BufRef at, StepId have) {
        // Root: put the product where the caller wants it.
        if (p.out && !same(*p.out, at)) {
            Deps d = p.outFree;
            d.add(have);
            r.ready = b.copy(at, p.type, *p.out, p.type, d);
            r.at = *p.out;
        } else {
            r.ready = have;
            r.at = at;
        }
    };
    Deps done{p.inputReady};
    // This member's input folded with its children's partials in tree order: the
    // product's buffer and step (each step of it also in *track when given).
    auto foldChildren = [&](const Placement& pl, Deps* track) {
        BufRef acc = p.input;
        StepId accReady = p.inputReady;
        for (size_t i = 0; i < pl.children.size(); ++i) {
            BufRef into = p.scratch.at(i);
            StepId got = b.recv(g.ranks[pl.children[i]], into, p.type, p.scratchFree, p.channel);
            // dst = src op dst: the child's block (higher indices) is the right operand.
            accReady = b.reduce(acc, into, p.type, {accReady, got});
            acc = into;
            if (track) track->add(accReady);
        }
        return std::make_pair(acc, accReady);
    };
    if (n <= 1) {
        deliver(p.input, p.inputReady);
        done.add(r.ready);
        r.done = b.join(done);
        return r;
    }

    if (g.me != rootIdx) {
        const Placement pl = place(*this, n, g.me, rootIdx);
        const auto [acc, accReady] = foldChildren(pl, &done);
        done.add(b.send(g.ranks[pl.sendTo], acc, p.type, accReady, p.channel));
        r.done = b.join(done);
        return r;
    }

    if (!rankOrder) {
        const auto [acc, accReady] = foldChildren(place(*this, n, g.me, rootIdx), nullptr);
        deliver(acc, accReady);
    } else {
        // Root in rank order: (left) op a_root op (right).
        const bool left = rootIdx > 0, right = rootIdx < n - 1;
        BufRef acc;
        StepId accReady;
        if (right) {
            acc = p.scratch.at(0);
            StepId got = b.recv(g.ranks[rootIdx + 1], acc, p.type, p.scratchFree, p.channel);
            accReady = b.reduce(p.input, acc, p.type, {got, p.inputReady});
        } else {
            // Nothing on the right: the product is built on a copy of a_root (or on out itself).
            acc = p.out ? *p.out : p.scratch.at(1);
            Deps d = p.out ? p.outFree : p.scratchFree;
            d.add(p.inputReady);
            accReady = same(acc, p.input) ? b.join(d) : b.copy(p.input, p.type, acc, p.type, d);
        }
        if (left) {
            BufRef l = p.scratch.at(right ? 1 : 0);
            StepId got = b.recv(g.ranks[0], l, p.type, p.scratchFree, p.channel);
            accReady = b.reduce(l, acc, p.type, {got, accReady});
        }
        deliver(acc, accReady);
    }
    done.add(r.ready);
    r.done = b.join(done);
    return r;
}

}  // namespace hieragg
