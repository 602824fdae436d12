#!/usr/bin/env python3
"""Click depth by 0-1 BFS over the verifier's own link graph (site_index.jsonl:
a/area/iframe links weigh 1, an instant refresh or HTTP redirect weighs 0),
with one shortest path per page; compares with the audit's deep pages for
several --max-depth values (audit run with each)."""
import os, sys, json, collections, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
idx = load_index()
dist = {START: 0}; parent = {START: None}
dq = collections.deque([START])
while dq:
    u = dq.popleft(); r = idx.get(u)
    if r is None: continue
    edges = []
    if r.get('refresh_url') and r.get('refresh_delay') is not None and r['refresh_delay'] <= 1:
        edges.append((r['refresh_url'], 0, 'refresh'))
    for k, t in r.get('targets', []):
        edges.append((t, 1, k))
    for t, w, k in edges:
        if t not in idx: continue
        nd = dist[u] + w
        if t not in dist or nd < dist[t]:
            dist[t] = nd; parent[t] = (u, k)
            (dq.appendleft if w == 0 else dq.append)(t)
def path(u):
    out = []
    while u:
        out.append(u); p = parent[u]; u = p[0] if p else None
    return list(reversed(out))
if __name__ == '__main__':
    json.dump(dist, open(ROOT + '/results/depths.json', 'w'))
    for u in sys.argv[1:]:
        print(dist.get(u), ' -> '.join(path(u)))
    html = {u for u, r in idx.items() if r['status'] == 200 and not (r.get('refresh_url') and r.get('refresh_delay') is not None and r['refresh_delay'] <= 1)}
    for md in (5, 4, 3, 2):
        out = subprocess.run([os.environ.get('BOTWARDEN', 'target/release/botwarden'), 'audit', os.environ['CRAWL_DB'], '--format', 'json', '--select', 'structure/deep-page', '--max-depth', str(md), '--max-evidence', '0'], capture_output=True, text=True).stdout
        fs = json.loads(out)['checks'][0]['findings']
        theirs = {f['url'] for f in fs}
        mine = {u for u in html if dist[u] > md}
        fp = theirs - mine
        print('max-depth %d: audit %d, verifier %d, true %d, false %d, missed %d' % (md, len(theirs), len(mine), len(theirs & mine), len(fp), len(mine - theirs)))
        for u in sorted(fp)[:3]:
            print('   FP', u, 'audit says', [f['message'] for f in fs if f['url'] == u][0], '| verifier', dist[u], ' -> '.join(path(u)))
