#include "hieragg/SimNetwork.hpp"

#include <cstring>

namespace hieragg::sim {

SimNetwork::SimNetwork(int ranks) : traffic_(static_cast<size_t>(ranks) * ranks) {
    for (int r = 0; r < ranks; ++r) transports_.push_back(std::make_unique<SimTransport>(*this, r));
}

uint64_t SimNetwork::totalMessages() const {
    uint64_t n = 0;
    for (const auto& t : traffic_) n += t.messages;
    return n;
}

void SimNetwork::resetTraffic() {
    for (auto& t : traffic_) t = {};
}

size_t SimNetwork::unmatchedMessages() const {
    size_t n = 0;
    for (const auto& kv : inflight_) n += kv.second.size();
    return n;
}

size_t SimNetwork::postedReceives() const {
    size_t n = 0;
    for (const auto& kv : posted_) n += kv.second.size();
    return n;
}

void SimNetwork::match(const Key& key) {
    auto in = inflight_.find(key);
    auto po = posted_.find(key);
    if (in == inflight_.end() || po == posted_.end()) return;
    while (!in->second.empty() && !po->second.empty()) {
        std::vector<char>& msg = in->second.front();
        Request* r = po->second.front();
        if (msg.size() > r->capacity) {
            error_ = "message truncated: " + std::to_string(msg.size()) + " bytes into " +
                     std::to_string(r->capacity);
            return;
        }
        if (!msg.empty()) std::memcpy(r->buf, msg.data(), msg.size());
        r->done = true;
        in->second.pop_front();
        po->second.pop_front();
    }
    if (in->second.empty()) inflight_.erase(in);
    if (po->second.empty()) posted_.erase(po);
}

int SimTransport::isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer,
                        int tag, void** req) {
    if (net_.sendFault_.rank == rank_ && net_.sendFault_.okSends-- <= 0) return net_.sendFault_.code;
    auto* t = static_cast<SimType*>(type);
    size_t bytes = count * t->size;
    SimNetwork::Key key{static_cast<SimComm*>(comm)->id, local, rank_, peer, tag};
    std::vector<char> payload(bytes);
    if (bytes) std::memcpy(payload.data(), buf, bytes);
    net_.inflight_[key].push_back(std::move(payload));
    auto& tc = net_.traffic_[static_cast<size_t>(rank_) * net_.size() + peer];
    ++tc.messages;
    tc.bytes += bytes;
    auto* r = new SimNetwork::Request;
    r->isSend = true;
    r->done = true;  // eager: the payload was copied
    *req = r;
    net_.match(key);
    return 0;
}

int SimTransport::irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
                        void** req) {
    auto* t = static_cast<SimType*>(type);
    SimNetwork::Key key{static_cast<SimComm*>(comm)->id, local, peer, rank_, tag};
    auto* r = new SimNetwork::Request;
    r->buf = buf;
    r->capacity = count * t->size;
    net_.posted_[key].push_back(r);
    *req = r;
    net_.match(key);
    return 0;
}

int SimTransport::test(void* req, bool& done) {
    auto* r = static_cast<SimNetwork::Request*>(req);
    if (!net_.error_.empty()) {
        // An error releases the request, as Transport::test promises (the Task forgets it).
        abandon(req);
        return 1;
    }
    done = r->done;
    if (done) delete r;
    return 0;
}

void SimTransport::abandon(void* req) {
    auto* r = static_cast<SimNetwork::Request*>(req);
    for (auto& kv : net_.posted_) {
        auto& q = kv.second;
        for (auto it = q.begin(); it != q.end(); ++it)
            if (*it == r) {
                q.erase(it);
                break;
            }
    }
    delete r;
}

int SimTransport::reduce(void* op, const void* src, void* dst, size_t count, void* type) {
    static_cast<SimOp*>(op)->apply(src, dst, count, *static_cast<SimType*>(type));
    return 0;
}

int SimTransport::copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount,
                       void* rtype) {
    size_t sb = scount * static_cast<SimType*>(stype)->size;
    size_t rb = rcount * static_cast<SimType*>(rtype)->size;
    if (sb > rb) return 1;
    if (sb) std::memmove(dst, src, sb);
    return 0;
}

hieragg_dtype_info SimTransport::typeInfo(void* type) {
    auto* t = static_cast<SimType*>(type);
    hieragg_dtype_info info{};
    info.size = t->size;
    info.extent = static_cast<ptrdiff_t>(t->size);
    info.true_extent = static_cast<ptrdiff_t>(t->size);
    return info;
}

void* SimTransport::packedType() { return net_.packed(); }

}  // namespace hieragg::sim
