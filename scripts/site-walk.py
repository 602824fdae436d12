#!/usr/bin/env python3
"""An independent link walk of one site, to check the crawler's URL set
against: every URL reachable from a start URL through <a href>,
<area href>, <frame src>, <iframe src> and instant (<= 1 s) meta refresh,
the HTML read as markup by Python's html.parser (so <noscript> content is
read as a parser that runs no scripts reads it), redirects followed,
robots.txt's '*' group obeyed (prefix rules), rel and meta nofollow obeyed,
fragments dropped. Prints every URL requested with its status, one per
line, spelled as the WHATWG URL standard serialises it (the crawler's
spelling: `<`, `>`, `"`, space and non-ASCII percent-encoded).

Usage: site-walk.py START_URL > walk.txt"""
import sys, re, threading, http.client
from html.parser import HTMLParser
from urllib.parse import urljoin, urldefrag, urlsplit, urlunsplit
from concurrent.futures import ThreadPoolExecutor

start = sys.argv[1]
host = urlsplit(start).netloc
local = threading.local()

def get(url):
    if not hasattr(local, 'c'):
        h, p = host.split(':')
        local.c = http.client.HTTPConnection(h, int(p), timeout=30)
    parts = urlsplit(url)
    path = parts.path or '/'
    if parts.query: path += '?' + parts.query
    for attempt in range(3):
        try:
            local.c.request('GET', path, headers={'User-Agent': 'walk'})
            r = local.c.getresponse()
            body = r.read()
            return r.status, r.getheader('Location'), r.getheader('Content-Type') or '', body
        except Exception:
            h, p = host.split(':')
            local.c = http.client.HTTPConnection(h, int(p), timeout=30)
    return None, None, '', b''

status, _, _, robots = get(urljoin(start, '/robots.txt'))
disallow = []
if status == 200:
    group = False
    for line in robots.decode('utf-8', 'replace').splitlines():
        line = line.split('#')[0].strip()
        if ':' not in line: continue
        k, v = [x.strip() for x in line.split(':', 1)]
        k = k.lower()
        if k == 'user-agent': group = (v == '*')
        elif k == 'disallow' and group and v: disallow.append(v)
def allowed(url):
    p = urlsplit(url)
    path = (p.path or '/') + ('?' + p.query if p.query else '')
    return not any(path.startswith(d) for d in disallow)

class Links(HTMLParser):
    def __init__(self, base):
        super().__init__(convert_charrefs=True)
        self.base = base; self.links = []; self.nofollow = False; self.refresh = None
    def handle_starttag(self, tag, attrs):
        a = dict((k, v or '') for k, v in attrs)
        if tag == 'base' and 'href' in a and not getattr(self, 'based', False):
            self.base = urljoin(self.base, a['href'].strip()); self.based = True
        elif tag in ('a', 'area') and 'href' in a:
            rel = a.get('rel', '').lower().split()
            if 'nofollow' not in rel: self.links.append(a['href'])
        elif tag in ('frame', 'iframe') and 'src' in a:
            self.links.append(a['src'])
        elif tag == 'meta':
            if a.get('name', '').lower() in ('robots',) and 'nofollow' in a.get('content', '').lower():
                self.nofollow = True
            if a.get('http-equiv', '').lower() == 'refresh':
                m = re.match(r'\s*(\d+)[^;,]*[;,]?\s*(url\s*=\s*)?(.*)', a.get('content', ''), re.I)
                if m and int(m.group(1)) <= 1 and m.group(3).strip():
                    self.refresh = m.group(3).strip().strip('\'"')

def encode(text, extra):
    out = []
    for ch in text:
        b = ch.encode('utf-8')
        if len(b) > 1 or ord(ch) < 0x21 or ord(ch) == 0x7f or ch in extra:
            out.append(''.join('%%%02X' % x for x in b))
        else:
            out.append(ch)
    return ''.join(out)

def whatwg(url):
    """The path and query percent-encode sets of the URL standard."""
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, encode(p.path, '"#<>?`{}'), encode(p.query, '"#<>\''), ''))

seen = set([start])
def visit(url):
    status, loc, ctype, body = get(url)
    out = []
    if status in (301, 302, 303, 307, 308) and loc:
        out.append(urljoin(url, loc))
    elif status == 200 and 'html' in ctype:
        p = Links(url)
        try:
            p.feed(body.decode('utf-8', 'replace')); p.close()
        except Exception:
            pass
        if p.refresh: out.append(urljoin(p.base, p.refresh))
        if not p.nofollow:
            out += [urljoin(p.base, l.strip()) for l in p.links]
    found = []
    for u in out:
        u = urldefrag(u)[0]
        s = urlsplit(u)
        if s.scheme not in ('http', 'https') or s.netloc != host: continue
        if not allowed(u): continue
        found.append(u)
    return url, status, found

with ThreadPoolExecutor(8) as pool:
    pending = {pool.submit(visit, start)}
    from concurrent.futures import wait, FIRST_COMPLETED
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for f in done:
            url, status, found = f.result()
            print(whatwg(url), status)
            for u in found:
                if u not in seen:
                    seen.add(u); pending.add(pool.submit(visit, u))
