#!/usr/bin/env python3
"""content/near-duplicate: for every finding, the Jaccard similarity of
word shingles (5 words, and 3 words for comparison with audit.md's table)
of the visible text between the group's first page and each other page,
bodies fetched from nginx (cache/). Visible text: html.parser data outside
<script>, <style>, <title>, <template>, <svg>; words are runs of ASCII
letters/digits or of non-ASCII characters, lower-cased.
A pair is judged a near copy when its 5-shingle Jaccard is >= 0.5
(half the 5-word runs of the two texts shared); the distribution is
reported so that another threshold can be read off."""
import os, sys, json, re, collections, statistics
from html.parser import HTMLParser
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

SKIP = {'script', 'style', 'title', 'template', 'svg'}


class Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.parts = []

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
        else:
            self.parts.append(' ')

    def handle_endtag(self, tag):
        if tag in SKIP and self.skip:
            self.skip -= 1
        else:
            self.parts.append(' ')

    def handle_startendtag(self, tag, attrs):
        self.parts.append(' ')

    def handle_data(self, d):
        if not self.skip:
            self.parts.append(d)


WORD = re.compile(r'[A-Za-z0-9]+|[^\x00-\x7f]+')


def words(body):
    p = Text()
    p.feed(body.decode('utf-8', 'replace'))
    p.close()
    return [w.lower() for w in WORD.findall(''.join(p.parts))]


def shingles(ws, k):
    return {tuple(ws[i:i + k]) for i in range(max(0, len(ws) - k + 1))}


def jac(a, b):
    return len(a & b) / len(a | b) if a or b else 1.0


def main():
    idx = load_index()
    audit = load_audit()
    fs = audit['content/near-duplicate']['findings']
    cache = {}

    def sh(u):
        if u not in cache:
            ws = words(read_body(idx[u]))
            cache[u] = (shingles(ws, 5), shingles(ws, 3), len(ws))
        return cache[u]

    pairs = []
    for f in fs:
        first = norm(f['url'])
        m = re.search(r'the others ([\d, ]+) bit', f['message'])
        dists = [int(x) for x in m.group(1).split(',')] if m else []
        a5, a3, na = sh(first)
        for i, u in enumerate(f.get('related', [])):
            b5, b3, nb = sh(norm(u))
            pairs.append(dict(first=first, other=norm(u), bits=dists[i] if i < len(dists) else None,
                              j5=jac(a5, b5), j3=jac(a3, b3), words=(na, nb),
                              same_body=idx[first]['sha'] == idx[norm(u)]['sha']))
        if len(cache) > 5000:
            cache.clear()
    json.dump(pairs, open(ROOT + '/results/near_duplicate_pairs.json', 'w'))
    n = len(pairs)
    j5 = sorted(p['j5'] for p in pairs)
    print('groups', len(fs), 'pairs', n)
    for lo, hi in [(0.95, 1.01), (0.9, 0.95), (0.8, 0.9), (0.7, 0.8), (0.5, 0.7), (0.3, 0.5), (0.0, 0.3)]:
        c = sum(1 for x in j5 if lo <= x < hi)
        print('  j5 in [%.2f,%.2f): %5d (%.1f%%)' % (lo, min(hi, 1.0), c, 100 * c / n))
    print('  median j5 %.3f, mean %.3f, median j3 %.3f' % (statistics.median(j5), statistics.mean(j5), statistics.median(p['j3'] for p in pairs)))
    by_bits = collections.defaultdict(list)
    for p in pairs:
        by_bits[p['bits']].append(p['j5'])
    for b in sorted(by_bits, key=lambda x: (x is None, x)):
        v = by_bits[b]
        print('  bits %s: %d pairs, median j5 %.3f, share j5>=0.5: %.3f, min %.3f' % (b, len(v), statistics.median(v), sum(x >= 0.5 for x in v) / len(v), min(v)))
    true = sum(1 for p in pairs if p['j5'] >= 0.5)
    print('pairs judged near copies (j5 >= 0.5): %d of %d = %.4f' % (true, n, true / n))
    print('same body among pairs (exact copies not left out):', sum(p['same_body'] for p in pairs))
    low = sorted(pairs, key=lambda p: p['j5'])[:15]
    for p in low:
        print('  low', '%.3f' % p['j5'], '%.3f' % p['j3'], p['bits'], p['words'], p['first'], p['other'])


if __name__ == '__main__':
    main()
