#!/usr/bin/env python3
"""Post-processing of near_dup_recall.py's pairs: each page of an exact-
duplicate group stands for its group's first page (the near-duplicate
check compares only that one, as audit.md says), then a pair is found when
both are in one near-duplicate group (or one exact group); exact Jaccard
for every miss estimated >= 0.99."""
import os, sys, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from verify_near_dup import words, shingles, jac
idx = load_index(); audit = load_audit()
rep = {}
for f in audit['content/exact-duplicate']['findings']:
    for u in [f['url']] + f.get('related', []):
        rep[norm(u)] = norm(f['url'])
R = lambda u: rep.get(u, u)
grp = {}
for i, f in enumerate(audit['content/near-duplicate']['findings']):
    for u in [f['url']] + f.get('related', []):
        grp[norm(u)] = i
out = json.load(open(ROOT + '/results/near_duplicate_recall_pairs.json'))
pairs = {}
for p in out:
    a, b = sorted((R(p['a']), R(p['b'])))
    if a == b:
        continue  # one body: content/exact-duplicate's
    p['found'] = a in grp and b in grp and grp[a] == grp[b]
    pairs[(a, b)] = p
ps = list(pairs.values())
for lo in (0.99, 0.97, 0.95, 0.9, 0.8):
    s = [p for p in ps if p['j3'] >= lo]
    f = sum(p['found'] for p in s)
    print('distinct-body pairs with est. 3-shingle Jaccard >= %.2f: %d, grouped by content/near-duplicate: %d (%.1f%%)' % (lo, len(s), f, 100 * f / len(s)))
for p in [p for p in ps if p['j3'] >= 0.99 and not p['found']]:
    wa = words(read_body(idx[p['a']])); wb = words(read_body(idx[p['b']]))
    print('  missed: est %.3f exact j3 %.4f j5 %.4f words %d/%d %s %s' % (p['j3'], jac(shingles(wa, 3), shingles(wb, 3)), jac(shingles(wa, 5), shingles(wb, 5)), len(wa), len(wb), p['a'], p['b']))
