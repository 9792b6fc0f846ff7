#include "hieragg/aggtree/TrafficModel.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hieragg::aggtree {

namespace {

TrafficReport emptyReport(const Fabric& fabric) {
    TrafficReport r;
    r.forward.assign(fabric.linkCount(), 0);
    r.backward.assign(fabric.linkCount(), 0);
    r.switchLoad.assign(fabric.vertexCount(), 0);
    return r;
}

// Walks `links` starting at vertex `from`, counting one packet per link and direction.
void addPath(const Fabric& fabric, TrafficReport& r, int from, const std::vector<int>& links) {
    int v = from;
    for (int id : links) {
        const auto& l = fabric.link(id);
        int to;
        if (l.a == v) {
            ++r.forward[id];
            to = l.b;
        } else if (l.b == v) {
            ++r.backward[id];
            to = l.a;
        } else {
            throw std::invalid_argument("traffic: path is not a walk of links");
        }
        if (fabric.isSwitch(to)) ++r.switchLoad[to];
        v = to;
    }
}

// Critical-path time: ready(v) from children in arrival order (see the header).
double criticalPath(const Tree& tree, const std::vector<double>& leafReady, const std::vector<int>& hopsToParent,
                    const std::vector<double>& packetCost, double l) {
    std::vector<double> ready(leafReady);
    std::vector<int> order{tree.root};
    for (size_t i = 0; i < order.size(); ++i)
        for (int c : tree.children[order[i]]) order.push_back(c);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        int v = *it;
        if (tree.children[v].empty()) continue;
        std::vector<double> arrivals;
        for (int c : tree.children[v]) arrivals.push_back(ready[c] + hopsToParent[c] * l);
        std::sort(arrivals.begin(), arrivals.end());
        double t = ready[v];
        for (double a : arrivals) t = std::max(t, a) + packetCost[v];
        ready[v] = t;
    }
    return tree.root == Tree::kNone ? 0.0 : ready[tree.root];
}

void finish(TrafficReport& r, const Tree& tree) {
    for (size_t i = 0; i < r.forward.size(); ++i) {
        r.maxLinkPackets = std::max({r.maxLinkPackets, r.forward[i], r.backward[i]});
        r.totalLinkPackets += r.forward[i] + r.backward[i];
    }
    r.heightEdges = tree.height();
    r.maxChildren = tree.maxDegree();
}

}  // namespace

TrafficReport typeOneTraffic(const Fabric& fabric, const Tree& tree, const ProcessPlacement& placement,
                             const TrafficTimeParameters& params) {
    if (tree.size() != placement.size())
        throw std::invalid_argument("typeOneTraffic: tree has " + std::to_string(tree.size()) + " vertices, placement " +
                                    std::to_string(placement.size()) + " processes");
    placement.validate(fabric);
    TrafficReport r = emptyReport(fabric);
    std::unordered_map<int, Fabric::RoutesTo> routes;  // one BFS per distinct parent NIC
    std::vector<int> hops(tree.size(), 0);
    for (int v = 0; v < tree.size(); ++v) {
        int p = tree.parent[v];
        if (p == Tree::kNone) continue;
        int src = placement.nicOfRank[v], dst = placement.nicOfRank[p];
        if (src == dst || fabric.nodeOf(src) == fabric.nodeOf(dst)) continue;
        auto it = routes.find(dst);
        if (it == routes.end()) it = routes.emplace(dst, fabric.routesTo(dst)).first;
        std::vector<int> path;
        for (int u = src; u != dst;) {
            int id = it->second.nextLink[u];
            if (id < 0) throw std::invalid_argument("typeOneTraffic: NIC unreachable");
            path.push_back(id);
            u = fabric.link(id).a == u ? fabric.link(id).b : fabric.link(id).a;
        }
        addPath(fabric, r, src, path);
        hops[v] = static_cast<int>(path.size());
    }
    finish(r, tree);
    // Radius in links along the tree.
    std::vector<int> dist(tree.size(), 0);
    std::vector<int> order{tree.root};
    for (size_t i = 0; i < order.size(); ++i)
        for (int c : tree.children[order[i]]) {
            dist[c] = dist[order[i]] + hops[c];
            r.radiusLinks = std::max(r.radiusLinks, dist[c]);
            order.push_back(c);
        }
    std::vector<double> cost(tree.size(), params.nic_packet_us);
    r.predictedUs = criticalPath(tree, std::vector<double>(tree.size(), 0.0), hops, cost, params.link_latency_us) +
                    std::max<long long>(0, r.maxLinkPackets - 1) * params.link_packet_us;
    return r;
}

TrafficReport typeTwoTraffic(const Fabric& fabric, const TypeTwoTree& t, const std::vector<int>& processesPerNic,
                             const TrafficTimeParameters& params) {
    TrafficReport r = emptyReport(fabric);
    const int n = t.tree.size();
    std::vector<int> hops(n, 0);
    std::vector<double> leafReady(n, 0.0), cost(n, 0.0);
    for (int v = 0; v < n; ++v) {
        int fv = t.fabricVertex[v];
        if (fabric.isSwitch(fv)) {
            ++r.entriesUsed;
            cost[v] = params.switch_packet_us;
        } else {
            int m = processesPerNic.empty() ? 1 : processesPerNic.at(fv);
            leafReady[v] = std::max(0, m - 1) * params.nic_packet_us;
            cost[v] = params.nic_packet_us;
        }
        if (v != t.tree.root) {
            addPath(fabric, r, fv, t.linksToParent[v]);
            hops[v] = static_cast<int>(t.linksToParent[v].size());
        }
    }
    finish(r, t.tree);
    r.radiusLinks = t.radiusLinks();
    r.predictedUs = criticalPath(t.tree, leafReady, hops, cost, params.link_latency_us) +
                    std::max<long long>(0, r.maxLinkPackets - 1) * params.link_packet_us;
    return r;
}

}  // namespace hieragg::aggtree
