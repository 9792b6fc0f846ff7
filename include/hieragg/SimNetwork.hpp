// In-process simulator: many virtual ranks in one process, no MPI. Each rank has
// a SimTransport; messages are matched by (communicator, source, tag) in posting
// order, as MPI's non-overtaking rule requires. Counts messages and bytes per
// pair so tests can check traffic (e.g. how many messages cross a node).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "hieragg/Transport.hpp"

namespace hieragg::sim {

// A datatype of the simulator: `size` contiguous bytes per element.
struct SimType {
    size_t size = 1;
    std::string name;
};
// dst[i] = src[i] op dst[i] for count elements.
struct SimOp {
    std::function<void(const void* src, void* dst, size_t count, const SimType& type)> apply;
    bool commutative = true;
};

struct SimComm {
    int id = 0;  // distinct per simulated communicator
};

class SimNetwork;

class SimTransport final : public Transport {
public:
    SimTransport(SimNetwork& net, int rank) : net_(net), rank_(rank) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override;
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
              void** req) override;
    int test(void* req, bool& done) override;
    void abandon(void* req) override;
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override;
    int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) override;
    hieragg_dtype_info typeInfo(void* type) override;
    void* packedType() override;
    int rank() const { return rank_; }

private:
    SimNetwork& net_;
    int rank_;
};

struct TrafficCounter {
    uint64_t messages = 0;
    uint64_t bytes = 0;
};

class SimNetwork {
public:
    explicit SimNetwork(int ranks);
    SimTransport& transport(int rank) { return *transports_[rank]; }
    int size() const { return static_cast<int>(transports_.size()); }
    SimType* packed() { return &packed_; }

    // Traffic recorded so far: [src][dst].
    const TrafficCounter& traffic(int src, int dst) const { return traffic_[src * size() + dst]; }
    uint64_t totalMessages() const;
    void resetTraffic();
    // Messages sent but never received (a schedule bug if non-zero after a run).
    size_t unmatchedMessages() const;
    // Error recorded by the simulator (e.g. truncation), empty if none.
    const std::string& error() const { return error_; }
    // Fault injection: from now on, `rank`'s sends after the first `okSends` fail with
    // `code` (as a PML error would).
    void failSends(int rank, int okSends, int code) { sendFault_ = {rank, okSends, code}; }
    // Receives posted and not yet matched (abandoned requests are gone).
    size_t postedReceives() const;

private:
    friend class SimTransport;
    struct Request {
        bool isSend = false;
        bool done = false;
        int key = 0;
        void* buf = nullptr;
        size_t capacity = 0;
    };
    using Key = std::tuple<int, int, int, int, int>;  // comm, local, src, dst, tag
    void match(const Key& key);

    SimType packed_{1, "packed"};
    std::vector<std::unique_ptr<SimTransport>> transports_;
    std::map<Key, std::deque<std::vector<char>>> inflight_;
    std::map<Key, std::deque<Request*>> posted_;
    std::vector<TrafficCounter> traffic_;
    std::string error_;
    struct SendFault {
        int rank = -1, okSends = 0, code = 0;
    } sendFault_;
};

}  // namespace hieragg::sim
