#include "hieragg/aggtree/Fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace hieragg::aggtree {

int Fabric::addSwitch(std::string name, int level) {
    int v = vertexCount();
    kind_.push_back(VertexKind::Switch);
    name_.push_back(std::move(name));
    level_.push_back(level);
    node_.push_back(-1);
    adj_.emplace_back();
    switches_.push_back(v);
    return v;
}

int Fabric::addNic(std::string name, int node) {
    int v = vertexCount();
    kind_.push_back(VertexKind::Nic);
    name_.push_back(std::move(name));
    level_.push_back(-1);
    node_.push_back(node);
    adj_.emplace_back();
    nics_.push_back(v);
    return v;
}

int Fabric::connect(int a, int b) {
    if (a < 0 || b < 0 || a >= vertexCount() || b >= vertexCount())
        throw std::invalid_argument("Fabric::connect: no such vertex");
    if (a == b) throw std::invalid_argument("Fabric::connect: self loop on " + name_[a]);
    if (isNic(a) && isNic(b))
        throw std::invalid_argument("Fabric::connect: NIC-to-NIC link " + name_[a] + " - " + name_[b]);
    int id = linkCount();
    links_.push_back({a, b});
    adj_[a].emplace_back(b, id);
    adj_[b].emplace_back(a, id);
    return id;
}

int Fabric::linkBetween(int a, int b) const {
    for (auto [n, id] : adj_.at(a))
        if (n == b) return id;
    return -1;
}

int Fabric::findByName(const std::string& name) const {
    for (int v = 0; v < vertexCount(); ++v)
        if (name_[v] == name) return v;
    return -1;
}

std::vector<int> Fabric::hopsFrom(int from) const {
    std::vector<int> dist(vertexCount(), kUnreachable);
    std::vector<int> queue{from};
    dist.at(from) = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
        int v = queue[head];
        // NICs do not forward: only the source NIC expands.
        if (isNic(v) && v != from) continue;
        for (auto [n, id] : adj_[v]) {
            (void)id;
            if (dist[n] == kUnreachable) {
                dist[n] = dist[v] + 1;
                queue.push_back(n);
            }
        }
    }
    return dist;
}

Fabric::RoutesTo Fabric::routesTo(int destination) const {
    RoutesTo r;
    r.destination = destination;
    r.hops = hopsFrom(destination);  // links are undirected, so distances are symmetric
    r.nextLink.assign(vertexCount(), -1);
    for (int v = 0; v < vertexCount(); ++v) {
        if (v == destination || r.hops[v] == kUnreachable) continue;
        // Candidates: neighbours one hop closer that may forward (switches, or the destination).
        int candidates = 0;
        for (auto [n, id] : adj_[v]) {
            (void)id;
            if (r.hops[n] == r.hops[v] - 1 && (isSwitch(n) || n == destination)) ++candidates;
        }
        int pick = candidates ? destination % candidates : 0;
        for (auto [n, id] : adj_[v]) {
            if (r.hops[n] == r.hops[v] - 1 && (isSwitch(n) || n == destination)) {
                if (pick-- == 0) {
                    r.nextLink[v] = id;
                    break;
                }
            }
        }
    }
    return r;
}

std::vector<int> Fabric::route(int from, int to) const {
    if (from == to) return {};
    if (isNic(from) && isNic(to) && nodeOf(from) == nodeOf(to)) return {};
    RoutesTo r = routesTo(to);
    std::vector<int> path;
    int v = from;
    while (v != to) {
        int id = r.nextLink[v];
        if (id < 0) return {};
        path.push_back(id);
        v = links_[id].a == v ? links_[id].b : links_[id].a;
    }
    return path;
}

std::vector<int> ProcessPlacement::multiplicity(const Fabric& fabric) const {
    std::vector<int> m(fabric.vertexCount(), 0);
    for (int nic : nicOfRank) ++m.at(nic);
    return m;
}

std::vector<int> ProcessPlacement::distinctNics() const {
    std::vector<int> out;
    std::unordered_set<int> seen;
    for (int nic : nicOfRank)
        if (seen.insert(nic).second) out.push_back(nic);
    return out;
}

void ProcessPlacement::validate(const Fabric& fabric) const {
    for (int r = 0; r < size(); ++r) {
        int v = nicOfRank[r];
        if (v < 0 || v >= fabric.vertexCount() || !fabric.isNic(v))
            throw std::invalid_argument("ProcessPlacement: rank " + std::to_string(r) + " is not on a NIC");
    }
}

ProcessPlacement placeBlock(const Fabric& fabric, int processes, int perNic, int firstNic) {
    if (perNic < 1) throw std::invalid_argument("placeBlock: perNic must be >= 1");
    long long needed = firstNic + (static_cast<long long>(processes) + perNic - 1) / perNic;
    if (firstNic < 0 || needed > static_cast<long long>(fabric.nics().size()))
        throw std::invalid_argument("placeBlock: fabric has " + std::to_string(fabric.nics().size()) +
                                    " NICs, need " + std::to_string(needed));
    ProcessPlacement p;
    p.nicOfRank.resize(processes);
    for (int r = 0; r < processes; ++r) p.nicOfRank[r] = fabric.nics()[firstNic + r / perNic];
    return p;
}

}  // namespace hieragg::aggtree
