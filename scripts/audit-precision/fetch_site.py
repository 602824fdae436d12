#!/usr/bin/env python3
"""Independent crawl of the nginx site (not botwarden's store): breadth-first
by levels from the start URL over <a href>, <area href>, <iframe src>,
<frame src> (<noscript> content read as markup, as html.parser does),
HTTP redirects and instant (<= 1 s) meta refreshes (a redirect's target
keeps its source's depth), robots.txt '*' prefix rules obeyed, hrefs over
2048 bytes not followed. Writes every body to cache/ (by SHA-256) and one
JSON line per URL to site_index.jsonl: url, depth, status, location,
content type, bytes, sha, and what the page's HTML says."""
import sys, os, json, hashlib, threading, http.client, time
from urllib.parse import urlsplit, urljoin
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import Pool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

local = threading.local()
HOSTPORT = ORIGIN.split('//')[1]


def get(url):
    p = urlsplit(url)
    path = (p.path or '/') + ('?' + p.query if p.query else '')
    for attempt in range(4):
        try:
            if not hasattr(local, 'c'):
                h, pt = HOSTPORT.split(':')
                local.c = http.client.HTTPConnection(h, int(pt), timeout=30)
            local.c.request('GET', path, headers={'User-Agent': 'precision-verifier'})
            r = local.c.getresponse()
            body = r.read()
            return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body
        except Exception as e:
            try: local.c.close()
            except Exception: pass
            del local.c
            time.sleep(0.1)
    return None, {}, b''


def fetch(url):
    st, hd, body = get(url)
    sha = hashlib.sha256(body).hexdigest()
    bp = body_path(sha)
    if not os.path.exists(bp):
        os.makedirs(os.path.dirname(bp), exist_ok=True)
        tmp = bp + '.%d' % threading.get_ident()
        with open(tmp, 'wb') as f:
            f.write(body)
        os.replace(tmp, bp)
    return dict(url=url, status=st, location=hd.get('location'), ctype=hd.get('content-type', ''),
                link_header=hd.get('link'), refresh_header=hd.get('refresh'),
                xrobots=hd.get('x-robots-tag'), bytes=len(body), sha=sha)


def analyse(rec):
    """Runs in a worker process: parse the page, resolve its links."""
    out = {}
    if rec['status'] == 200 and 'html' in rec['ctype']:
        with open(body_path(rec['sha']), 'rb') as f:
            body = f.read()
        p = extract(rec['url'], body)
        out['titles'] = p.titles
        out['descriptions'] = p.descriptions
        out['h1'] = p.h1
        out['canonicals'] = p.canonicals
        out['robots'] = p.robots
        out['refresh'] = p.refresh
        out['base'] = p.base
        targets = []
        odd = []
        for kind, href, anchor in p.links:
            if len(href.strip()) > 2048:
                odd.append([kind, href, anchor, 'long'])
                continue
            t, scheme = resolve(p.base, href)
            if t is None:
                odd.append([kind, href, anchor, scheme])
                continue
            try:
                n = norm(t)
            except Exception:
                odd.append([kind, href, anchor, 'malformed'])
                continue
            targets.append([kind, n])
        out['targets'] = targets
        out['odd'] = odd
        rf = parse_refresh(p.refresh) if p.refresh is not None else None
        if rf is None and rec.get('refresh_header'):
            rf = parse_refresh(rec['refresh_header'])
        if rf:
            out['refresh_delay'] = rf[0]
            out['refresh_url'] = norm(urljoin(p.base, rf[1])) if rf[1] else None
    return out


def main():
    st, hd, robots = get(ORIGIN + '/robots.txt')
    disallow = []
    if st == 200:
        grp = False
        for line in robots.decode('utf-8', 'replace').splitlines():
            line = line.split('#')[0].strip()
            if ':' not in line: continue
            k, v = [x.strip() for x in line.split(':', 1)]
            if k.lower() == 'user-agent': grp = (v == '*')
            elif k.lower() == 'disallow' and grp and v: disallow.append(v)

    def allowed(u):
        p = urlsplit(u)
        path = (p.path or '/') + ('?' + p.query if p.query else '')
        return not any(path.startswith(d) for d in disallow)

    seen = {START: 0}
    level = [START]
    depth = 0
    out = open(ROOT + '/site_index.jsonl', 'w')
    skipped = open(ROOT + '/site_skipped.txt', 'w')
    n = 0
    t0 = time.time()
    with ThreadPoolExecutor(8) as tp, Pool(2) as pp:
        while level:
            nxt = []
            cur = level
            while cur:
                recs = list(tp.map(fetch, cur))
                infos = pp.map(analyse, recs, chunksize=16)
                more = []  # redirect targets: same depth
                for rec, info in zip(recs, infos):
                    rec.update(info)
                    rec['depth'] = depth
                    follow = []
                    if rec['status'] in (301, 302, 303, 307, 308) and rec['location']:
                        more.append(norm(urljoin(rec['url'], rec['location'])))
                    if rec.get('refresh_delay') is not None and rec['refresh_delay'] <= 1 and rec.get('refresh_url'):
                        more.append(rec['refresh_url'])
                    for kind, t in rec.get('targets', []):
                        follow.append(t)
                    for u in set(more):
                        if (u not in seen or seen[u] == depth + 1) and u.startswith(ORIGIN + '/') and allowed(u):
                            seen[u] = depth
                    for u in follow:
                        if u in seen: continue
                        if not u.startswith(ORIGIN + '/'):
                            seen[u] = -1; skipped.write('scope\t%s\n' % u); continue
                        if not allowed(u):
                            seen[u] = -1; skipped.write('robots\t%s\n' % u); continue
                        seen[u] = depth + 1
                        nxt.append(u)
                    out.write(json.dumps(rec) + '\n')
                    n += 1
                # redirect targets not yet fetched at this depth
                cur = [u for u in dict.fromkeys(more) if seen.get(u) == depth and u not in fetched]
                fetched.update(cur)
            print('depth', depth, 'fetched so far', n, '%.0fs' % (time.time() - t0), file=sys.stderr, flush=True)
            level = [u for u in dict.fromkeys(nxt) if seen[u] == depth + 1 and u not in fetched]
            depth += 1
            fetched.update(level)
    out.close()


fetched = {START}
if __name__ == '__main__':
    main()
