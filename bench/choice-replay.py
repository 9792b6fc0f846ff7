#!/usr/bin/env python3
"""Replay recorded jobs' choices offline (issue 18: is the choice stable across jobs?).

Reads the hieragg job logs of a perf-compare --log-plans run (RUN/raw/LAYOUT.hieragg.runN.log:
each job's `hieragg: node:` / `hieragg: network:` calibration lines and its verbose-2 plan
lines), gives every job's measured links to `hieragg-plan select --measured-*` for each
cell the jobs ran, and prints:
  - check:    how many of the jobs' plans the replay reproduces (prediction within 1%;
              a difference is the model changed since the run, or the log's rounding);
  - cells:    per cell with more than one plan across the jobs, each job's replayed plan,
              then the count "N of M cells with more than one plan";
  - attribute: per such cell and pair of jobs, which single measured parameter, set to the
              other job's value, changes the first job's plan (a cell no single one flips
              needs several together).
usage: choice-replay.py PLAN RUN_DIR [check|cells|attribute] [-- extra hieragg-plan options]
Layouts: 2x4rr (8 ranks, 2 nodes round robin) and 4x2block (8 ranks, 4 nodes of 2).
"""
import collections, copy, glob, itertools, os, re, subprocess, sys

LAYOUT = {'2x4rr': ['-P', '8', '--ranks-per-node', '4', '--split', 'roundrobin:2'],
          '4x2block': ['-P', '8', '--ranks-per-node', '2', '--split', 'node']}
TERMS = ('alpha', 'beta', 'exchange', 'duplex', 'rendezvous', 'burst', 'noise')


def parse_link(line):
    d = {}
    m = re.search(r'alpha=([\d.]+) us beta=([\d.]+) ns/B', line)
    d['alpha'], d['beta'] = float(m[1]), float(m[2])
    m = re.search(r'exchange=([\d.]+) us', line)
    if m: d['exchange'] = float(m[1])
    m = re.search(r'duplex beta=([\d.]+) ns/B', line)
    if m: d['duplex'] = float(m[1])
    m = re.search(r'rendezvous=([\d.]+) us at >= (\d+) B', line)
    if m: d['rendezvous'], d['eager'] = float(m[1]), float(m[2])
    m = re.search(r'burst=([\d.]+) us per further message( \(not measured\))?', line)
    if m and not m[2]: d['burst'] = float(m[1])
    d['noise'] = float(re.search(r'noise=([\d.]+)%', line)[1]) / 100
    return d


def parse_log(path):
    job = {'network': None, 'node': None, 'plans': {}}
    for line in open(path, errors='replace'):
        for link in ('network', 'node'):
            if f'hieragg: {link}: alpha=' in line: job[link] = parse_link(line)
        m = re.search(r'hieragg: (\w+) on \d+ ranks: (.*?) \{from the cost model\} \[(\d+) B, pred=([\d.]+) us\]', line)
        if m: job['plans'][(m[1], int(m[3]))] = (m[2], float(m[4]))
    return job


def link_args(d, link):
    if not d: return []
    a = [f'--measured-{link}-alpha', str(d['alpha']), f'--measured-{link}-beta', str(d['beta'])]
    for k in ('exchange', 'duplex', 'burst'):
        if d.get(k): a += [f'--measured-{link}-{k}', str(d[k])]
    if 'eager' in d: a += [f'--measured-{link}-rendezvous', str(d['rendezvous']), f'--measured-{link}-eager', str(d['eager'])]
    return a + [f'--measured-{link}-noise', str(d['noise'])]


def select(plan, layout, coll, size, job, extra):
    out = subprocess.run([plan, 'select', '--coll', coll, '--size', str(size)] + LAYOUT[layout] +
                         link_args(job['network'], 'network') + link_args(job['node'], 'node') + extra,
                         capture_output=True, text=True).stdout
    lines = out.splitlines()
    i = next(i for i, l in enumerate(lines) if re.search(r' on \d+ ranks: pred=', l))
    pred = float(re.search(r'pred=([\d.]+) us', lines[i])[1])
    sig = []
    for l in lines[i + 1:]:
        if l.startswith('parent of'): break
        m = re.match(r'\s*(.*?) seg=(\d+) B', l)  # where, row, tree, k and segment: the plan
        sig.append(f'{m[1]} seg={m[2]}' if m else l.strip()[:60])
    return pred, ' | '.join(sig)


def main():
    args = sys.argv[1:]
    extra = args[args.index('--') + 1:] if '--' in args else []
    args = args[:args.index('--')] if '--' in args else args
    plan, run = args[0], args[1]
    what = args[2] if len(args) > 2 else 'cells'
    jobs = collections.defaultdict(dict)
    for path in sorted(glob.glob(run + '/raw/*.hieragg.run*.log')):
        layout, _, name = os.path.basename(path).split('.')[:3]
        jobs[layout][name] = parse_log(path)
    total = ok = unstable = cells = 0
    for layout, js in sorted(jobs.items()):
        for key in sorted(set().union(*[set(j['plans']) for j in js.values()])):
            coll, size = key
            res = {n: select(plan, layout, coll, size, j, extra) for n, j in js.items()}
            cells += 1
            if what == 'check':
                for n, j in js.items():
                    if key not in j['plans']: continue
                    total += 1
                    name, pred = j['plans'][key]
                    if abs(res[n][0] - pred) <= max(0.02, 0.01 * pred): ok += 1
                    else: print(f'differs: {layout} {n} {coll} {size}: job {name} ({pred} us), replay {res[n][0]:.2f} us {res[n][1]}')
                continue
            if len(set(s for _, s in res.values())) < 2: continue
            unstable += 1
            print(f'== {layout} {coll} {size}: {len(set(s for _, s in res.values()))} plans')
            for n, (p, s) in sorted(res.items()): print(f'   {n}: {p:.1f} us  {s}')
            if what != 'attribute': continue
            for (na, ja), (nb, jb) in itertools.combinations(sorted(js.items()), 2):
                if res[na][1] == res[nb][1]: continue
                flips = []
                for link, k in itertools.product(('network', 'node'), TERMS):
                    if not ja[link] or ja[link].get(k) == (jb[link] or {}).get(k): continue
                    a = copy.deepcopy(ja)
                    if (jb[link] or {}).get(k) is None: a[link].pop(k, None)
                    else: a[link][k] = jb[link][k]
                    r = select(plan, layout, coll, size, a, extra)[1]
                    if r != res[na][1]:
                        flips.append(f"{link}.{k} {ja[link].get(k)}->{(jb[link] or {}).get(k)}" +
                                     ('' if r == res[nb][1] else ' (a third plan)'))
                print(f'   {na} -> {nb}: ' + (', '.join(flips) if flips else 'no single parameter flips it'))
    if what == 'check': print(f'{ok} of {total} job plans reproduced')
    else: print(f'{unstable} of {cells} cells with more than one plan')


if __name__ == '__main__':
    main()
