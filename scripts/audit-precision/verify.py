#!/usr/bin/env python3
"""Independent verifier of botwarden's audit findings on the nginx site.

Reads site_index.jsonl and cache/ (written by fetch_site.py from nginx,
never from botwarden's store) and audit.json (the audit's findings), and
for each check decides every finding (or a seeded sample) by the check's
documented definition, computes the verifier's own set of findings from
every page (recall), and checks the evidence shape. Writes
results/<check>.json and prints one line per check.

Usage: verify.py [CODE ...]   (default: every check with findings)"""
import sys, os, json, random, re, collections
from urllib.parse import urlsplit, parse_qsl, unquote_to_bytes
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

SEED = 20240601
SAMPLE = 400

idx = load_index()
audit = load_audit()
os.makedirs(ROOT + '/results', exist_ok=True)


def instant(r):
    return r['status'] == 200 and r.get('refresh_delay') is not None and r['refresh_delay'] <= 1 and r.get('refresh_url')


def html_page(r):
    return r['status'] == 200 and r['ctype'].split(';')[0].strip() in ('text/html', 'application/xhtml+xml') and not instant(r)


PAGES = [r for r in idx.values() if html_page(r)]


def title(r):
    t = [x for x in r.get('titles', [])]
    return t[0][0] if t else None


def collapse(s):
    return ' '.join(s.split()) if s is not None else None


# in-links: target -> list of (source, kind), the site's links (a, area,
# iframe) that are not to their own page
_inlinks = None


def inlinks():
    global _inlinks
    if _inlinks is None:
        _inlinks = collections.defaultdict(list)
        for r in idx.values():
            for kind, t in r.get('targets', []):
                if t != r['url']:
                    _inlinks[t].append((r['url'], kind))
    return _inlinks


_parsed = {}


def links_of(src):
    """(kind, resolved target, anchor) of a page, re-parsed from its body."""
    if src not in _parsed:
        r = idx.get(src)
        if r is None or r['status'] != 200:
            _parsed[src] = None
        else:
            p = extract(src, read_body(r))
            out = []
            for kind, href, anchor in p.links:
                t, _ = resolve(p.base, href)
                if t:
                    try:
                        out.append((kind, norm(t), anchor))
                    except Exception:
                        pass
            _parsed[src] = out
        if len(_parsed) > 3000:
            _parsed.pop(next(iter(_parsed)))
    return _parsed[src]


def check_links_evidence(f, url, notes):
    """Each listed link really is on its source, leads to url, is not a
    self link; link_count equals the verifier's count."""
    bad = 0
    for l in f.get('links', []):
        src = l['source']
        if norm(src) == norm(url):
            notes['self_link_in_evidence'] += 1
            bad += 1
            continue
        ls = links_of(norm(src)) or []
        ok = any(t == norm(url) and k == l['kind'] and (l['anchor'] is None or collapse(a or '') == l['anchor'] or (a or '').startswith(l['anchor'][:150])) for k, t, a in ls)
        if not ok:
            notes['link_not_found_on_source'] += 1
            notes.setdefault('link_not_found_examples', []).append([url, l])
            bad += 1
    mine = len(inlinks().get(norm(url), []))
    if mine != f.get('link_count', 0):
        notes['link_count_differs'] += 1
        if len(notes.setdefault('link_count_examples', [])) < 10:
            notes['link_count_examples'].append([url, f.get('link_count'), mine])
    return bad


def sample(findings):
    """Every finding is judged; the evidence (links re-read from their
    source pages) on all when at most SAMPLE, else on a seeded sample."""
    global EVIDENCE
    if len(findings) <= SAMPLE:
        EVIDENCE = {id(f) for f in findings}
        return findings, 'all'
    rnd = random.Random(SEED)
    EVIDENCE = {id(f) for f in rnd.sample(findings, SAMPLE)}
    return findings, 'all (links: sample %d, seed %d)' % (SAMPLE, SEED)


EVIDENCE = set()


def result(code, true, false, verified, mine=None, theirs=None, notes=None, fps=None):
    out = dict(code=code, findings=audit[code]['count'], verified=verified, true=true, false=false,
               precision=(true / (true + false)) if true + false else None)
    if mine is not None:
        tp = len(mine & theirs)
        out['verifier_findings'] = len(mine)
        out['recall'] = tp / len(mine) if mine else None
        out['missed'] = sorted(mine - theirs)[:50]
        out['missed_count'] = len(mine - theirs)
        out['extra'] = sorted(theirs - mine)[:50]
        out['extra_count'] = len(theirs - mine)
    out['false_examples'] = (fps or [])[:50]
    out['notes'] = notes or {}
    json.dump(out, open('%s/results/%s.json' % (ROOT, code.replace('/', '_')), 'w'), indent=1)
    print('%-32s findings %6d verified %-22s true %6d false %5d precision %s recall %s  %s' % (
        code, out['findings'], verified, true, false,
        '%.4f' % out['precision'] if out['precision'] is not None else '-',
        '%.4f' % out['recall'] if out.get('recall') is not None else '-',
        {k: v for k, v in (notes or {}).items() if not isinstance(v, list)}), flush=True)
    return out


def per_page_check(code, predicate, evidence_links=False, mine_pages=None):
    """A check about a page itself: predicate(rec) -> (bool, why)."""
    fs = audit[code]['findings']
    smp, how = sample(fs)
    true = false = 0
    fps = []
    notes = collections.Counter()
    for f in smp:
        r = idx.get(norm(f['url']))
        if r is None:
            false += 1; fps.append([f['url'], 'not reached by the verifier']); continue
        ok, why = predicate(r, f)
        if ok:
            true += 1
        else:
            false += 1; fps.append([f['url'], why])
        if not evidence_links and f.get('links'):
            notes['links_listed_for_page_check'] += 1
        if evidence_links and id(f) in EVIDENCE:
            check_links_evidence(f, r['url'], notes)
    pages = mine_pages if mine_pages is not None else PAGES
    mine = {r['url'] for r in pages if predicate(r, None)[0]}
    theirs = {norm(f['url']) for f in fs}
    return result(code, true, false, how, mine, theirs, dict(notes), fps)


# ---------------------------------------------------------------- checks

def missing_title(r, f):
    t = title(r)
    return (html_page(r) and (t is None or t.strip() == ''), 'title %r' % t)


def long_title(r, f):
    t = title(r)
    n = len(t.strip()) if t else 0
    ok = html_page(r) and n > 60
    if f and ok:
        m = re.search(r'has (\d+) characters', f['message'])
        if m and int(m.group(1)) != n:
            return False, 'title has %d chars, message says %s' % (n, m.group(1))
    return ok, 'title %r (%d chars)' % (t, n)


def desc(r):
    d = r.get('descriptions', [])
    return d[0] if d else None


def missing_description(r, f):
    return html_page(r) and not r.get('descriptions'), 'descriptions %r' % r.get('descriptions')


def empty_description(r, f):
    d = desc(r)
    return html_page(r) and bool(r.get('descriptions')) and (d is None or d.strip() == ''), 'description %r' % d


def long_description(r, f):
    d = collapse(desc(r)) or ''
    ok = html_page(r) and len(d) > 160
    if f and ok:
        m = re.search(r'has (\d+) characters', f['message'])
        if m and int(m.group(1)) != len(d):
            return False, 'description has %d chars, message says %s' % (len(d), m.group(1))
    return ok, 'description has %d chars' % len(d)


def missing_h1(r, f):
    return html_page(r) and len(r.get('h1', [])) == 0, 'h1 %r' % r.get('h1')


def multiple_h1(r, f):
    n = len(r.get('h1', []))
    ok = html_page(r) and n > 1
    if f and ok:
        m = re.match(r'(\d+) <h1>', f['message'])
        if m and int(m.group(1)) != n:
            return False, '%d h1, message says %s' % (n, m.group(1))
    return ok, '%d h1' % n


def canonical_missing(r, f):
    hdr = r.get('link_header') or ''
    return html_page(r) and not r.get('canonicals') and 'canonical' not in hdr.lower(), 'canonicals %r' % r.get('canonicals')


def large_page(r, f):
    return html_page(r) and r['bytes'] > 300 * 1024, '%d bytes' % r['bytes']


def deep_page(r, f):
    ok = r['status'] == 200 and not instant(r) and r['depth'] > 5
    if f and ok:
        m = re.match(r'(\d+) clicks', f['message'])
        if m and int(m.group(1)) != r['depth']:
            return False, 'depth %d, message says %s' % (r['depth'], m.group(1))
    return ok, 'verifier depth %d' % r['depth']


def hygiene_problems(url):
    p = urlsplit(url)
    path = p.path
    out = []
    if re.search(r'[A-Z]', re.sub(r'%[0-9A-Fa-f]{2}', '', path)):
        out.append('upper case in the path')
    if '_' in path:
        out.append('underscores in the path')
    params = len(parse_qsl(p.query, keep_blank_values=True)) if p.query else 0
    if params > 3:
        out.append('%d query parameters (limit 3)' % params)
    if len(url) > 115:
        out.append('%d characters long (limit 115)' % len(url))
    if any(b >= 0x80 for b in unquote_to_bytes(path + '?' + p.query)):
        out.append('characters outside ASCII')
    return out


def url_hygiene(r, f):
    pr = hygiene_problems(r['url'])
    if f is not None:
        if pr != f['message'].split('; '):
            return False, 'verifier says %r, message %r' % (pr, f['message'])
    return bool(pr) and r['status'] is not None, '; '.join(pr)


def refresh_redirect(r, f):
    ok = r['status'] == 200 and r.get('refresh_url') is not None
    if f and ok:
        rel = f.get('related') or []
        if rel and norm(rel[0]) != r['refresh_url']:
            return False, 'target %s, finding says %s' % (r['refresh_url'], rel)
    return ok, 'refresh %r' % r.get('refresh')


def to_redirect(r, f):
    redirect = r['status'] in (301, 302, 303, 307, 308) or instant(r)
    linked = len(inlinks().get(r['url'], [])) > 0
    ok = redirect and linked
    if f and ok:
        target = norm(urljoin(r['url'], r['location'])) if r['status'] != 200 else r['refresh_url']
        if norm((f.get('related') or [''])[0]) != target:
            return False, 'target %s, finding says %s' % (target, f.get('related'))
    return ok, 'status %s refresh %r delay %s, %d in-links' % (r['status'], r.get('refresh'), r.get('refresh_delay'), len(inlinks().get(r['url'], [])))


def noindex(r):
    says = any('noindex' in (c or '').lower() or 'none' in [w.strip() for w in (c or '').lower().split(',')] for c in r.get('robots', []))
    return says or 'noindex' in (r.get('xrobots') or '').lower()


def noindex_linked(r, f):
    ok = r['status'] == 200 and noindex(r) and len(inlinks().get(r['url'], [])) > 0
    return ok, 'robots %r, %d in-links' % (r.get('robots'), len(inlinks().get(r['url'], [])))


ALL_FETCHED = None


def run_page_checks(codes):
    simple = {
        'content/missing-title': (missing_title, False, None),
        'content/long-title': (long_title, False, None),
        'content/missing-description': (missing_description, False, None),
        'content/empty-description': (empty_description, False, None),
        'content/long-description': (long_description, False, None),
        'content/missing-h1': (missing_h1, False, None),
        'content/multiple-h1': (multiple_h1, False, None),
        'canonical/missing': (canonical_missing, False, None),
        'performance/large-page': (large_page, False, None),
        'structure/deep-page': (deep_page, True, list(idx.values())),
        'structure/url-hygiene': (url_hygiene, True, list(idx.values())),
        'links/refresh-redirect': (refresh_redirect, True, list(idx.values())),
        'links/to-redirect': (to_redirect, True, list(idx.values())),
        'indexing/noindex-linked': (noindex_linked, True, list(idx.values())),
    }
    for code in codes:
        if code in simple:
            pred, ev, pages = simple[code]
            per_page_check(code, pred, ev, pages)


# ---------------------------------------------------------------- groups

def group_check(code, keyfn, message_key):
    """Group checks: every page of a finding's group has the same key;
    the groups equal the verifier's own groups (pages with the key, more
    than one page, not all one body)."""
    fs = audit[code]['findings']
    groups = collections.defaultdict(list)
    for r in PAGES:
        k = keyfn(r)
        if k:
            groups[k].append(r)
    mine = {}
    for k, rs in groups.items():
        if len(rs) > 1 and len({r['sha'] for r in rs}) > 1:
            mine[k] = {r['url'] for r in rs}
    smp, how = sample(fs)
    true = false = 0
    fps = []
    notes = collections.Counter()
    for f in smp:
        urls = [norm(f['url'])] + [norm(u) for u in f.get('related', [])]
        if f.get('related_count', 0) != len(f.get('related', [])):
            notes['related_truncated'] += 1
        recs = [idx.get(u) for u in urls]
        if any(r is None for r in recs):
            false += 1; fps.append([f['url'], 'page not reached']); continue
        keys = {keyfn(r) for r in recs}
        if len(keys) != 1 or None in keys or '' in keys:
            false += 1; fps.append([f['url'], 'keys differ: %r' % list(keys)[:5]]); continue
        if len({r['sha'] for r in recs}) == 1:
            false += 1; fps.append([f['url'], 'all one body']); continue
        k = keys.pop()
        mk = mine.get(k, set())
        if set(urls) != mk:
            notes['group_differs_from_verifier'] += 1
            if len(notes.setdefault('group_diff_examples', [])) < 10:
                notes['group_diff_examples'].append([f['url'], sorted(set(urls) - mk)[:5], sorted(mk - set(urls))[:5]])
        true += 1
        if id(f) in EVIDENCE:
            check_links_evidence(f, urls[0], notes)
    theirs_pages = set()
    for f in fs:
        theirs_pages |= {norm(f['url'])} | {norm(u) for u in f.get('related', [])}
    mine_pages = set().union(*mine.values()) if mine else set()
    out = result(code, true, false, how + ' (groups)', mine_pages, theirs_pages, dict(notes), fps)
    return out


def exact_duplicate():
    code = 'content/exact-duplicate'
    fs = audit[code]['findings']
    by = collections.defaultdict(list)
    for r in PAGES:
        if not r.get('canonicals') or norm(urljoin(r['url'], r['canonicals'][0])) == r['url']:
            by[r['sha']].append(r['url'])
    mine = {k: set(v) for k, v in by.items() if len(v) > 1}
    true = false = 0
    fps = []
    notes = collections.Counter()
    for f in fs:
        urls = [norm(f['url'])] + [norm(u) for u in f.get('related', [])]
        bodies = set()
        for u in urls:
            r = idx.get(u)
            bodies.add(read_body(r) if r else None)
        if len(bodies) == 1 and None not in bodies and len(urls) > 1:
            true += 1
        else:
            false += 1; fps.append([f['url'], 'bodies differ'])
        sha = idx[urls[0]]['sha']
        if set(urls) != mine.get(sha, set()):
            notes['group_differs_from_verifier'] += 1
        check_links_evidence(f, urls[0], notes)
    theirs_pages = set()
    for f in fs:
        theirs_pages |= {norm(f['url'])} | {norm(u) for u in f.get('related', [])}
    mine_pages = set().union(*mine.values())
    return result(code, true, false, 'all (groups)', mine_pages, theirs_pages, dict(notes), fps)


def bad_href_check(code, pred):
    """The page holds the offending hrefs; related lists them as written."""
    fs = audit[code]['findings']
    mine = {}
    for r in idx.values():
        n = [o for o in r.get('odd', []) if pred(o)]
        if n:
            mine[r['url']] = n
    true = false = 0
    fps = []
    notes = collections.Counter()
    for f in fs:
        u = norm(f['url'])
        m = mine.get(u)
        if not m:
            false += 1; fps.append([f['url'], 'no such href on the page: %r' % f.get('related', [])[:2]]); continue
        true += 1
        if f.get('link_count') != len(m):
            notes['link_count_differs'] += 1
            notes.setdefault('count_examples', []).append([f['url'], f.get('link_count'), len(m)])
        hrefs = {o[1] for o in m}
        for rel in f.get('related', []):
            h = rel[len('href="'):-1]
            if h not in hrefs:
                if any(x.startswith(h) for x in hrefs):
                    notes['href_shown_truncated'] += 1
                    notes.setdefault('truncated_examples', []).append([f['url'], len(h), max(len(x) for x in hrefs if x.startswith(h))])
                else:
                    notes['href_not_found'] += 1
        for l in f.get('links', []):
            if norm(l['source']) != u:
                notes['link_source_not_page'] += 1
    return result(code, true, false, 'all', set(mine), {norm(f['url']) for f in fs}, dict(notes), fps)


def main(codes):
    if not codes:
        codes = [c for c in audit if audit[c]['count']]
    run_page_checks(codes)
    if 'content/exact-duplicate' in codes:
        exact_duplicate()
    if 'content/duplicate-title' in codes:
        group_check('content/duplicate-title', lambda r: (title(r) or '').strip() or None, 'title')
    if 'content/duplicate-description' in codes:
        group_check('content/duplicate-description', lambda r: (collapse(desc(r)) or None), 'description')
    if 'content/duplicate-h1' in codes:
        group_check('content/duplicate-h1', lambda r: (r['h1'][0][:200] if r.get('h1') else None) or None, 'h1')
    if 'links/javascript-href' in codes:
        bad_href_check('links/javascript-href', lambda o: o[3] == 'javascript')
    if 'links/long-url' in codes:
        bad_href_check('links/long-url', lambda o: o[3] == 'long')
    if 'links/unknown-scheme' in codes:
        known = {'about', 'blob', 'data', 'file', 'ftp', 'http', 'https', 'javascript', 'bitcoin', 'ftps', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'matrix', 'mms', 'news', 'nntp', 'openpgp4fpr', 'sftp', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn', 'webcal', 'wtai', 'xmpp'}
        bad_href_check('links/unknown-scheme', lambda o: o[3] not in known and o[3] not in ('long', 'malformed') and not o[3].startswith('web+'))


if __name__ == '__main__':
    main(sys.argv[1:])
