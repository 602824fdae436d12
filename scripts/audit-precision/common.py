"""Shared pieces of the independent verifiers: URL normal form, an HTML
extractor (html.parser) and the page cache written by fetch_site.py.
Nothing here reads botwarden's store: every page comes from nginx."""
import re, json, os, hashlib
from html.parser import HTMLParser
from urllib.parse import urlsplit, urlunsplit, urljoin

ROOT = os.environ.get('AUDIT_PRECISION_DIR', 'target/audit-precision')
CACHE = ROOT + '/cache'
PORT = os.environ['SITE_PORT']
ORIGIN = 'http://127.0.0.1:%s' % PORT
START = ORIGIN + '/'

UNRESERVED = set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
PATH_ENC = set(' "#<>?`{}')
QUERY_ENC = set(' "#<>\'')


def _fix_escapes(s, enc):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == '%' and i + 2 < len(s) + 0 and re.match(r'[0-9A-Fa-f]{2}', s[i + 1:i + 3]):
            ch = chr(int(s[i + 1:i + 3], 16))
            if ch in UNRESERVED:
                out.append(ch)
            else:
                out.append('%' + s[i + 1:i + 3].upper())
            i += 3
            continue
        if ord(c) > 126 or ord(c) < 33 or c in enc:
            out.append(''.join('%%%02X' % b for b in c.encode('utf-8')))
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def norm(url):
    """Normal form: scheme/host lower case, default port dropped, fragment
    dropped, escapes of unreserved characters decoded, others upper case."""
    p = urlsplit(url)
    scheme = p.scheme.lower()
    host = (p.hostname or '').lower()
    port = p.port
    netloc = host + (':%d' % port if port and not (scheme == 'http' and port == 80 or scheme == 'https' and port == 443) else '')
    path = _fix_escapes(p.path or '/', PATH_ENC)
    query = _fix_escapes(p.query, QUERY_ENC) if p.query or '?' in url.split('#')[0] else ''
    q = ('?' + query) if ('?' in url.split('#')[0]) else ''
    return scheme + '://' + netloc + path + q


def resolve(base, href):
    """Resolve an href as a browser does (enough for this site): strip
    ASCII white space, drop tabs/newlines, backslashes as slashes."""
    h = href.strip(' \t\n\r\f')
    h = re.sub(r'[\t\n\r]', '', h)
    m = re.match(r'^([A-Za-z][A-Za-z0-9+.-]*):', h)
    if m and m.group(1).lower() not in ('http', 'https'):
        return None, m.group(1).lower()
    h = h.replace('\\', '/')
    try:
        return urljoin(base, h), (m.group(1).lower() if m else None)
    except ValueError:
        return None, 'malformed'


REFRESH_RE = re.compile(r'^\s*([0-9]*)(\.[0-9.]*)?\s*([;,]\s*)?(.*)$', re.S)


def parse_refresh(content):
    """HTML standard's shared declarative refresh steps (simplified):
    returns (delay_seconds, url_or_None) or None."""
    m = REFRESH_RE.match(content or '')
    if not m or (m.group(1) == '' and not m.group(2)):
        return None
    delay = int(m.group(1) or '0')
    rest = m.group(4).strip()
    url = None
    if rest:
        mm = re.match(r'^[Uu][Rr][Ll]\s*=\s*(.*)$', rest, re.S)
        if mm:
            rest = mm.group(1)
        elif m.group(3) is None:
            rest = ''
        if rest[:1] in ('"', "'"):
            q = rest[0]
            rest = rest[1:]
            if q in rest:
                rest = rest[:rest.index(q)]
        url = rest.strip() or None
    return delay, url


VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr'}
HEAD_OK = {'html', 'head', 'title', 'meta', 'link', 'base', 'script', 'style', 'noscript', 'template'}


class Extract(HTMLParser):
    def __init__(self, url):
        super().__init__(convert_charrefs=True)
        self.url = url
        self.base = url
        self.base_seen = False
        self.in_head = True  # until </head>, <body> or a body element
        self.titles = []      # (text, in_head)
        self._title = None
        self.descriptions = []
        self.h1 = []
        self._h1 = None
        self.canonicals = []
        self.robots = []
        self.refresh = None
        self.links = []       # (kind, href_raw, anchor)
        self._a = None
        self.svg = 0

    def handle_starttag(self, tag, attrs):
        a = {}
        for k, v in attrs:
            if k not in a:
                a[k] = v if v is not None else ''
        if tag == 'svg':
            self.svg += 1
        if tag == 'body' or (self.in_head and tag not in HEAD_OK and tag != 'svg'):
            self.in_head = False
        if tag == 'title' and self.svg == 0:
            self._title = []
        elif tag == 'base' and 'href' in a and not self.base_seen:
            self.base_seen = True
            self.base = urljoin(self.url, a['href'].strip())
        elif tag == 'meta':
            name = a.get('name', '').strip().lower()
            if name == 'description':
                self.descriptions.append(a.get('content'))
            elif name in ('robots', 'botwarden'):
                self.robots.append(a.get('content', ''))
            if a.get('http-equiv', '').strip().lower() == 'refresh' and self.refresh is None:
                self.refresh = a.get('content', '')
        elif tag == 'link':
            if 'canonical' in a.get('rel', '').lower().split():
                self.canonicals.append(a.get('href'))
        elif tag == 'h1':
            self._h1 = []
        elif tag in ('a', 'area'):
            if 'href' in a:
                if tag == 'a':
                    self._a = [a['href'], []]
                else:
                    self.links.append(('area', a['href'], a.get('alt')))
        elif tag in ('iframe', 'frame'):
            if 'src' in a:
                self.links.append(('iframe', a['src'], None))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == 'svg' and self.svg:
            self.svg -= 1
        if tag == 'head':
            self.in_head = False
        if tag == 'title' and self._title is not None:
            self.titles.append((''.join(self._title), self.in_head))
            self._title = None
        elif tag == 'h1' and self._h1 is not None:
            self.h1.append(' '.join(''.join(self._h1).split()))
            self._h1 = None
        elif tag == 'a' and self._a is not None:
            self.links.append(('a', self._a[0], ' '.join(''.join(self._a[1]).split())))
            self._a = None

    def handle_data(self, data):
        if self._title is not None:
            self._title.append(data)
        if self._h1 is not None:
            self._h1.append(data)
        if self._a is not None:
            self._a[1].append(data)

    def close(self):
        super().close()
        if self._a is not None:
            self.links.append(('a', self._a[0], ' '.join(''.join(self._a[1]).split())))
        if self._h1 is not None:
            self.h1.append(' '.join(''.join(self._h1).split()))


def extract(url, body):
    p = Extract(url)
    p.feed(body.decode('utf-8', 'replace'))
    p.close()
    return p


def body_path(sha):
    return '%s/%s/%s.html' % (CACHE, sha[:2], sha)


def load_index():
    idx = {}
    with open(ROOT + '/site_index.jsonl') as f:
        for line in f:
            r = json.loads(line)
            idx[r['url']] = r
    return idx


def read_body(rec):
    with open(body_path(rec['sha']), 'rb') as f:
        return f.read()


def load_audit():
    d = json.load(open(ROOT + '/audit.json'))
    return {c['code']: c for c in d['checks']}
