#include "hieragg/hier/CostParams.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hieragg::hier {

const char* linkClassName(int link) {
    static const char* names[kLinkClassCount] = {"numa", "node", "network", "switch"};
    return link >= 0 && link < kLinkClassCount ? names[link] : "?";
}

CostParams CostParams::defaults() {
    // Orders of magnitude of a shared-memory node and an Ethernet/IB cluster; the
    // component's MCA parameters carry the same defaults (coll_hieragg_params.c).
    CostParams p;
    p.link[kLinkNuma] = {0.3, 1.0 / 10000, 0.1, 1.0 / 4000};
    p.link[kLinkNode] = {0.5, 1.0 / 6000, 0.1, 1.0 / 4000};
    p.link[kLinkNetwork] = {3.0, 1.0 / 1500, 0.2, 1.0 / 4000};
    p.link[kLinkSwitch] = {5.0, 1.0 / 1000, 0.2, 1.0 / 4000};
    return p;
}

hieragg_link_cost defaultLinkCost(int link) {
    const LinkCost l = CostParams::defaults().link[link >= 0 && link < kLinkClassCount ? link : kLinkNode];
    return {l.alpha_us, l.beta_us_per_byte * 1000.0, l.theta_us, l.gamma_us_per_byte * 1000.0};
}

CostParams costParamsFrom(const hieragg_link_cost (&links)[HIERAGG_LINK_CLASS_COUNT]) {
    CostParams p = CostParams::defaults();
    for (int i = 0; i < kLinkClassCount; ++i) {
        const hieragg_link_cost& c = links[i];
        if (c.alpha_us == 0 && c.beta_ns_per_byte == 0 && c.theta_us == 0 && c.gamma_ns_per_byte == 0) continue;
        if (c.alpha_us >= 0) p.link[i].alpha_us = c.alpha_us;
        if (c.beta_ns_per_byte >= 0) p.link[i].beta_us_per_byte = c.beta_ns_per_byte / 1000.0;
        if (c.theta_us >= 0) p.link[i].theta_us = c.theta_us;
        if (c.gamma_ns_per_byte >= 0) p.link[i].gamma_us_per_byte = c.gamma_ns_per_byte / 1000.0;
    }
    return p;
}

void applyOffloadCost(CostParams& p, const hieragg_link_cost& c) {
    if (c.alpha_us == 0 && c.beta_ns_per_byte == 0 && c.theta_us == 0 && c.gamma_ns_per_byte == 0) return;
    if (c.alpha_us >= 0) p.offload.alpha_us = c.alpha_us;
    if (c.beta_ns_per_byte >= 0) p.offload.beta_us_per_byte = c.beta_ns_per_byte / 1000.0;
    if (c.theta_us >= 0) p.offload.theta_us = c.theta_us;
    if (c.gamma_ns_per_byte >= 0) p.offload.gamma_us_per_byte = c.gamma_ns_per_byte / 1000.0;
}

hieragg_link_cost defaultOffloadCost() {
    const LinkCost l = CostParams::defaults().offload;
    return {l.alpha_us, l.beta_us_per_byte * 1000.0, l.theta_us, l.gamma_us_per_byte * 1000.0};
}

bool setCostParam(CostParams& p, const std::string& name, double value) {
    const std::string prefix = "coll_hieragg_cost_";
    if (name.rfind(prefix, 0) != 0) return false;
    if (name.rfind(prefix + "ofi_", 0) == 0) {
        const std::string what = name.substr(prefix.size() + 4);
        LinkCost& c = p.offload;
        if (what == "alpha") c.alpha_us = value;
        else if (what == "beta") c.beta_us_per_byte = value / 1000.0;
        else if (what == "theta") c.theta_us = value;
        else if (what == "gamma") c.gamma_us_per_byte = value / 1000.0;
        else return false;
        return true;
    }
    for (int l = 0; l < kLinkClassCount; ++l) {
        const std::string link = prefix + linkClassName(l) + "_";
        if (name.rfind(link, 0) != 0) continue;
        const std::string what = name.substr(link.size());
        LinkCost& c = p.link[l];
        if (what == "alpha") c.alpha_us = value;
        else if (what == "beta") c.beta_us_per_byte = value / 1000.0;
        else if (what == "theta") c.theta_us = value;
        else if (what == "gamma") c.gamma_us_per_byte = value / 1000.0;
        else if (what == "exchange") c.exchange_us = value;
        else if (what == "duplex") c.duplex_beta_us_per_byte = value / 1000.0;
        else return false;
        return true;
    }
    return false;
}

std::string readCostParams(CostParams& p, const std::string& path) {
    std::ifstream in(path);
    if (!in) return "cannot read " + path;
    std::string line, problems;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        line = line.substr(0, line.find('#'));
        const size_t eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string name, rest;
        std::istringstream(line.substr(0, eq)) >> name;
        double value = 0;
        std::istringstream v(line.substr(eq + 1));
        if (name.rfind("coll_hieragg_cost_", 0) != 0) continue;
        if (!(v >> value) || !setCostParam(p, name, value))
            problems += path + ":" + std::to_string(n) + ": bad line '" + line + "'\n";
    }
    return problems;
}

namespace {
int insideClass(const std::string& name) {
    if (name.rfind("numa", 0) == 0) return kLinkNuma;
    // A topology: level above the leaves (Decomposition names it "... (switch level N)")
    // groups leaf switches, so its messages cross switches.
    if (name.rfind("topology", 0) == 0 && name.find(" (switch level ") != std::string::npos) return kLinkSwitch;
    if (name.rfind("topology", 0) == 0 || name.rfind("switch", 0) == 0) return kLinkNetwork;
    return kLinkNode;  // node, virtual:N, roundrobin:N, file:PATH (groups of ranks on one node)
}
}  // namespace

std::vector<int> stageLinks(const std::vector<std::string>& levelNames, int levels) {
    std::vector<int> out;
    int last = kLinkNode;
    for (int l = 0; l < levels; ++l) {
        int cls = l < static_cast<int>(levelNames.size()) ? insideClass(levelNames[l]) : kLinkNode;
        cls = std::max(cls, l == 0 ? cls : out.back());  // outer levels are never cheaper
        out.push_back(cls);
        last = cls;
    }
    out.push_back(std::min<int>(last + 1, kLinkSwitch));
    return out;
}

}  // namespace hieragg::hier
