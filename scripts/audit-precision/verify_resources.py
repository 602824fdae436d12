"""The resource checks (`resources/broken`, `resources/blocked`,
`images/heavy`) judged from the web server: every HTML page the crawl
fetched (the list of URLs only is read from its store) is asked again
and read with html.parser (`<img src>`, `<script src>`,
`<link rel=stylesheet href>`, outside `<template>`, the first `<base
href>` applied); every resource is asked with HEAD (GET when HEAD is
refused), its robots.txt read with Python's urllib.robotparser for
`botwarden` (one that cannot be reached disallows everything, as RFC 9309
says). Precision and recall per check against the audit's JSON.

Environment: CRAWL_DB (the store), AUDIT_JSON (`botwarden audit DB
--select resources,images/heavy --format json --max-evidence 100000`).
"""
import json, os, sqlite3, urllib.error, urllib.parse, urllib.request, urllib.robotparser
from html.parser import HTMLParser

HEAVY = 100 * 1024
db = sqlite3.connect(os.environ['CRAWL_DB'])
audit = json.load(open(os.environ['AUDIT_JSON']))


class Resources(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found, self.base, self.template = [], None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'template':
            self.template += 1
        if self.template:
            return
        if tag == 'base' and self.base is None and a.get('href'):
            self.base = a['href']
        rel = (a.get('rel') or '').lower().split()
        for kind, name, ok in (('image', 'src', tag == 'img'), ('script', 'src', tag == 'script'),
                               ('style', 'href', tag == 'link' and 'stylesheet' in rel)):
            if ok and (a.get(name) or '').strip():
                self.found.append((kind, a[name].strip()))

    def handle_endtag(self, tag):
        if tag == 'template' and self.template:
            self.template -= 1


def ask(url, method):
    request = urllib.request.Request(url, method=method, headers={'User-Agent': 'verifier'})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            body = r.read() if method == 'GET' else b''
            length = r.headers.get('Content-Length')
            return r.status, int(length) if length else len(body)
    except urllib.error.HTTPError as e:
        return e.code, None
    except OSError:
        return None, None


pages = [u for (u,) in db.execute(
    "SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id "
    "WHERE p.status = 200 AND p.content_type = 'text/html' AND p.body_read = 1 ORDER BY u.id")]
used = {}
for page in pages:
    with urllib.request.urlopen(page, timeout=10) as r:
        text = r.read().decode('utf-8', 'replace')
    parser = Resources()
    parser.feed(text)
    base = urllib.parse.urljoin(page, parser.base) if parser.base else page
    for kind, href in parser.found:
        url = urllib.parse.urljoin(base, href).split('#')[0]
        if url.startswith(('http://', 'https://')):
            used.setdefault(url, kind)

robots = {}
truth = {'resources/broken': set(), 'resources/blocked': set(), 'images/heavy': set()}
for url, kind in used.items():
    origin = '{0.scheme}://{0.netloc}'.format(urllib.parse.urlsplit(url))
    if origin not in robots:
        rp = urllib.robotparser.RobotFileParser(origin + '/robots.txt')
        try:
            rp.read()
        except OSError:
            # Unreachable: RFC 9309 disallows everything.
            rp.disallow_all = True
        robots[origin] = rp
    if not robots[origin].can_fetch('botwarden', url):
        truth['resources/blocked'].add(url)
        continue
    status, size = ask(url, 'HEAD')
    if status in (405, 501):
        status, size = ask(url, 'GET')
    if status is None or status >= 400:
        truth['resources/broken'].add(url)
    elif kind == 'image' and 200 <= status < 300 and size is not None and size > HEAVY:
        truth['images/heavy'].add(url)

found = {c['code']: {f['url'] for f in c['findings']} for c in audit['checks']}
print(f'{len(pages)} pages read, {len(used)} resources')
for code, expected in truth.items():
    got = found.get(code, set())
    right = len(got & expected)
    precision = right / len(got) if got else 1.0
    recall = right / len(expected) if expected else 1.0
    print(f'{code:<20} findings {len(got):>5} verifier {len(expected):>5} '
          f'precision {precision:.3f} recall {recall:.3f}')
    for url in sorted(got - expected)[:20]:
        print('   only the audit:', url)
    for url in sorted(expected - got)[:20]:
        print('   only the verifier:', url)
