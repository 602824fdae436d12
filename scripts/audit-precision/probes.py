#!/usr/bin/env python3
"""Cheap false-negative and edge probes over every page the verifier fetched,
and the evidence order (links listed in the order of their pages' discovery:
the store's url ids are read only to know that order)."""
import os, sys, json, collections, sqlite3
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
idx = load_index()
c = collections.Counter()
for r in idx.values():
    if r.get('refresh') is not None:
        c['refresh delay %s url %s' % (r.get('refresh_delay'), bool(r.get('refresh_url')))] += 1
    t = r.get('titles', [])
    if len(t) > 1: c['pages with more than one <title>'] += 1
    if t and not t[0][1]: c['first <title> outside head'] += 1
    if t and t[0][0] != t[0][0].strip(): c['title with white space at an end'] += 1
    if t and any(ch in t[0][0] for ch in '\n\t'): c['title with newline/tab'] += 1
    if r.get('h1') and len(r['h1'][0]) > 200: c['first h1 over 200 chars'] += 1
    d = r.get('descriptions', [])
    if len(d) > 1: c['pages with >1 description'] += 1
    if d and d[0] and d[0] != ' '.join(d[0].split()): c['description with white space to collapse'] += 1
    if r.get('canonicals'): c['pages with canonical'] += 1
    for o in r.get('odd', []):
        c['odd href: %s' % o[3]] += 1
    for k, t in r.get('targets', []):
        if len(t) > 2000: c['followed target over 2000 chars'] += 1
lens = sorted(len(o[1]) for r in idx.values() for o in r.get('odd', []) if o[3] == 'long')
print(dict(c))
print('long hrefs: %d, shortest %d, longest %d' % (len(lens), lens[0], lens[-1]))
near = [len(t) for r in idx.values() for k, t in r.get('targets', []) if 1900 < len(t)]
print('followed hrefs 1900-2048 chars:', len(near), sorted(near)[-3:] if near else '')
# evidence order
db = sqlite3.connect('file:%s?mode=ro' % os.environ['CRAWL_DB'], uri=True)
ids = dict(db.execute('select url, id from urls'))
d = json.load(open(ROOT + '/audit.json'))
bad = collections.Counter(); tot = collections.Counter()
for ch in d['checks']:
    for f in ch['findings']:
        ls = f.get('links') or []
        if len(ls) < 2: continue
        tot[ch['code']] += 1
        seq = [ids[l['source']] for l in ls]
        if seq != sorted(seq): bad[ch['code']] += 1
        if f.get('link_count', 0) > 100 and len(ls) != 100: bad[ch['code'] + ' (not 100 listed)'] += 1
print('findings with links out of discovery order:', dict(bad), 'of', dict(tot))
