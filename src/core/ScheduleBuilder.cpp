#include "hieragg/ScheduleBuilder.hpp"

#include <algorithm>
#include <stdexcept>

namespace hieragg {

namespace {
// A step between two local buffers (a copy, a reduction, a fabric collective's data).
Step localStep(StepKind kind, BufRef src, TypeRef srcType, BufRef dst, TypeRef dstType) {
    Step s;
    s.kind = kind;
    s.src = src;
    s.srcType = srcType;
    s.dst = dst;
    s.dstType = dstType;
    return s;
}
}  // namespace

StepId ScheduleBuilder::add(Step s, const Deps& deps) {
    s.localComm = local_;
    s.depBegin = static_cast<uint32_t>(sched_.deps.size());
    const StepId self = static_cast<StepId>(sched_.steps.size());
    for (StepId d : deps.ids()) {
        if (d < 0 || d >= self) throw std::logic_error("schedule dependency on a later step");
        sched_.deps.push_back(d);
    }
    // Duplicates would count twice in the executor's pending counters.
    auto first = sched_.deps.begin() + s.depBegin;
    std::sort(first, sched_.deps.end());
    sched_.deps.erase(std::unique(first, sched_.deps.end()), sched_.deps.end());
    s.depCount = static_cast<uint32_t>(sched_.deps.size() - s.depBegin);
    if (s.channel + 1 > sched_.channels) sched_.channels = s.channel + 1;
    sched_.steps.push_back(s);
    return self;
}

StepId ScheduleBuilder::transfer(bool outgoing, int peer, BufRef buf, TypeRef type, const Deps& deps,
                                 uint32_t channel) {
    if (peer < 0) return kNoStep;
    Step s;
    s.kind = outgoing ? StepKind::Send : StepKind::Recv;
    s.peer = peer;
    s.channel = channel;
    (outgoing ? s.src : s.dst) = buf;
    (outgoing ? s.srcType : s.dstType) = type;
    return add(s, deps);
}

StepId ScheduleBuilder::send(int peer, BufRef src, TypeRef type, const Deps& deps, uint32_t channel) {
    return transfer(true, peer, src, type, deps, channel);
}

StepId ScheduleBuilder::recv(int peer, BufRef dst, TypeRef type, const Deps& deps, uint32_t channel) {
    return transfer(false, peer, dst, type, deps, channel);
}

StepId ScheduleBuilder::copy(BufRef src, TypeRef srcType, BufRef dst, TypeRef dstType, const Deps& deps) {
    if (srcType.count == 0 && dstType.count == 0) return join(deps);
    return add(localStep(StepKind::Copy, src, srcType, dst, dstType), deps);
}

StepId ScheduleBuilder::collective(uint8_t fabricKind, BufRef src, BufRef dst, size_t count, int root,
                                   const Deps& deps, size_t segment) {
    // The segment travels as dstType.count (read back as FabricCollective::segment).
    Step s = localStep(StepKind::Collective, src, {kPackedType, count}, dst, {kPackedType, segment ? segment : count});
    s.fabric = fabricKind;
    s.peer = root;
    return add(s, deps);
}

StepId ScheduleBuilder::reduce(BufRef src, BufRef dst, TypeRef type, const Deps& deps) {
    if (type.count == 0) return join(deps);
    return add(localStep(StepKind::Reduce, src, type, dst, type), deps);
}

StepId ScheduleBuilder::join(const Deps& deps) {
    if (deps.empty()) return kNoStep;
    if (deps.ids().size() == 1) return deps.ids().front();
    Step s;
    s.kind = StepKind::Nop;
    return add(s, deps);
}

void ScheduleBuilder::beginFragment() {
    if (fragmentBegin_ != kNoStep) throw std::logic_error("fragment templates do not nest");
    fragmentBegin_ = static_cast<StepId>(sched_.steps.size());
}

void ScheduleBuilder::endFragment(FragmentPipeline p) {
    if (fragmentBegin_ == kNoStep) throw std::logic_error("endFragment without beginFragment");
    p.begin = fragmentBegin_;
    p.end = static_cast<StepId>(sched_.steps.size());
    fragmentBegin_ = kNoStep;
    if (p.fragments == 0 || p.window == 0 || p.window > kStageChannels)
        throw std::logic_error("fragment pipeline needs 1..256 in flight and at least one fragment");
    for (StepId i = p.begin; i < p.end; ++i) {
        const Step& s = sched_.steps[i];
        if (s.kind == StepKind::Collective) throw std::logic_error("no offloaded step in a fragment template");
        // Fragments talk on segmentChannel(channel, f): reserve the stage's channels they use.
        if (s.kind == StepKind::Send || s.kind == StepKind::Recv) {
            const uint32_t top = s.channel + static_cast<uint32_t>(std::min<size_t>(p.fragments, kStageChannels));
            if (top > sched_.channels) sched_.channels = top;
        }
    }
    if (p.end == p.begin) return;  // nothing to repeat
    sched_.pipelines.push_back(std::move(p));
}

BufRef ScheduleBuilder::temp(size_t bytes, ptrdiff_t bias) {
    sched_.temps.push_back({bytes, bias});
    return {static_cast<uint32_t>(kFirstTemp + sched_.temps.size() - 1), 0};
}

void ScheduleBuilder::appendAlgorithm(const std::string& part) {
    if (!sched_.algorithm.empty()) sched_.algorithm += "+";
    sched_.algorithm += part;
}

Schedule ScheduleBuilder::finish() {
    // Reverse edges, so completing a step wakes exactly its dependents.
    const size_t n = sched_.steps.size();
    sched_.dependentBegin.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        const Step& s = sched_.steps[i];
        for (uint32_t j = 0; j < s.depCount; ++j) ++sched_.dependentBegin[sched_.deps[s.depBegin + j] + 1];
    }
    for (size_t i = 0; i < n; ++i) sched_.dependentBegin[i + 1] += sched_.dependentBegin[i];
    sched_.dependents.assign(sched_.deps.size(), kNoStep);
    std::vector<uint32_t> fill(sched_.dependentBegin.begin(), sched_.dependentBegin.end() - 1);
    for (size_t i = 0; i < n; ++i) {
        const Step& s = sched_.steps[i];
        for (uint32_t j = 0; j < s.depCount; ++j)
            sched_.dependents[fill[sched_.deps[s.depBegin + j]]++] = static_cast<StepId>(i);
    }
    // Distinct peers per communicator side, and each message's index among them.
    for (int side = 0; side < 2; ++side) {
        std::vector<int>& peers = side ? sched_.localPeers : sched_.peers;
        peers.clear();
        for (const Step& s : sched_.steps)
            if ((s.kind == StepKind::Send || s.kind == StepKind::Recv) && s.localComm == (side == 1))
                peers.push_back(s.peer);
        std::sort(peers.begin(), peers.end());
        peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    }
    for (Step& s : sched_.steps) {
        if (s.kind != StepKind::Send && s.kind != StepKind::Recv) continue;
        const std::vector<int>& peers = s.localComm ? sched_.localPeers : sched_.peers;
        s.peerSlot = static_cast<uint32_t>(std::lower_bound(peers.begin(), peers.end(), s.peer) - peers.begin());
    }
    return std::move(sched_);
}

}  // namespace hieragg
