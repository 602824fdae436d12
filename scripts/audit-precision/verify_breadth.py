#!/usr/bin/env python3
"""Independent verifier of the audit's page-quality and link-breadth checks
(the checks listed in CHECKS below) on the nginx site.

Like verify.py, it reads only what fetch_site.py wrote from nginx
(site_index.jsonl and cache/) and audit.json; every HTML body is parsed
again here with html.parser (class Page), independently of the crawler's
reading. For each check it judges every finding by the check's documented
definition (precision), computes the verifier's own set of findings from
every page (recall), and compares the finding's message and `related`
with what the verifier read (notes: `message_differs`, with examples).
A differing count in a message does not make a finding false: the verdict
is whether the page (or URL) has the property the check reports.

Not judged, with the reason printed:
  sitemaps/missing-indexable, sitemaps/listed-twice: the site's only
    sitemap (/sitemap.txt, named in robots.txt) lists URLs of
    doc.rust-lang.org, not of the served origin, so no page of the crawl
    is in a sitemap; findings, if any, are listed unjudged.
  security/missing-headers: the site is served over http://; the check
    is about HTTPS pages, so every finding is false by definition.

links/missing-fragment: the verifier resolves each <a>/<area> href with a
  fragment (cut at a text directive ':~:'; '' and 'top' skipped) against
  its page, and looks the fragment up, as written and percent-decoded,
  among the target's ids (outside <template>) and <a name>s, as read by
  its own parser; only targets it read as HTML pages; the first 1,000
  such links of a page. The JSON-LD checks read each block with
  json.loads against the table of docs/audit.md, written again here; the
  hreflang checks read <link rel=alternate hreflang> with html.parser and
  the targets' records (robots, canonical) from fetch_site.py's index.

content/thin: words are counted two ways (see Page):
  verifier  the visible text as a browser shows it: text outside
            <script>, <style>, <title>, <template> and the fallback content
            of <iframe>, <noembed>, <noframes>; character references
            decoded; inline elements (<code>, <a>, <span>…) and comments
            do not end a word, other markup does; a word is a maximal run
            of Unicode letters and digits (str.isalnum).
  crawler   the reading the crawler documents for the SimHash: text
            outside <script>, <style>, <title>, <textarea>, <xmp>,
            <iframe>, <noembed>, <noframes>, <plaintext>; character
            references as written (`&lt;` is the word `lt`); every piece
            of markup ends a word; a word is a run of ASCII letters and
            digits or of non-ASCII characters.
  Findings are judged by the first; the pages where the two verdicts
  differ are counted and shown, with the reason, in the notes.

Writes results/<check>.json (as verify.py does) and results/breadth_disagreements.json.

Usage: verify_breadth.py [CODE ...]   (default: every check below)
Environment: SITE_PORT, AUDIT_PRECISION_DIR (as verify.py); JOBS (parser
processes, default: the number of CPUs)."""
import sys, os, json, re, collections, html, ipaddress
from html.parser import HTMLParser
from multiprocessing import Pool
from urllib.parse import urlsplit, unquote
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

CHECKS = [
    'links/dead-end', 'links/too-many', 'links/private-address', 'links/follow-and-nofollow',
    'links/non-descriptive-anchor', 'content/multiple-description',
    'sitemaps/missing-indexable', 'sitemaps/listed-twice',
    'images/missing-alt', 'images/long-alt', 'images/missing-size',
    'content/multiple-title', 'content/lang-missing', 'content/lang-invalid',
    'content/viewport-missing', 'content/duplicate-id', 'content/heading-skip', 'content/thin',
    'structured-data/invalid-json-ld', 'security/missing-headers', 'links/protocol-relative',
    'links/missing-fragment', 'structured-data/missing-required', 'structured-data/conflicting-context',
    'hreflang/lang-mismatch', 'hreflang/to-non-canonical', 'hreflang/to-noindex', 'hreflang/relative',
]

# ------------------------------------------------------------ the parser

# Content a browser does not show as text (verifier's reading).
HIDDEN_VERIFIER = {'script', 'style', 'title', 'template', 'iframe', 'noembed', 'noframes'}
# The crawler's documented hidden content (scan_text's list).
HIDDEN_CRAWLER = {'script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext'}
# Phrasing elements whose tags do not split a word on screen ("<code>Vec</code>s").
INLINE = {'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font',
          'i', 'ins', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub',
          'sup', 'time', 'tt', 'u', 'var', 'wbr'}
UWORD = re.compile(r'[^\W_]+')                   # runs of str.isalnum characters (text, not HTML)
CWORD = re.compile(r'[A-Za-z0-9\x80-\U0010ffff]+')  # ASCII alnum or non-ASCII
LINK_ATTR = {'a': 'href', 'area': 'href', 'iframe': 'src', 'frame': 'src'}


class Page(HTMLParser):
    """What the checks read of one page, outside <template> where the
    store's documentation says template content is not counted (images,
    titles, lang, viewport, ids, headings, JSON-LD, scheme-less links).
    Links are read everywhere (as fetch_site.py reads them)."""

    def __init__(self):
        super().__init__(convert_charrefs=False)  # charrefs seen as written, for the crawler's count
        self.template = 0
        self.svg = 0
        self.hidden_v = []    # open elements hiding text (verifier)
        self.hidden_c = []    # open elements hiding text (crawler)
        self.raw = []         # raw text since the last piece of markup
        self.vtext = []       # visible text (verifier), '\0' where a word must end
        self.cwords = 0
        self.images = []      # (src, alt or None, width?, height?)
        self.titles = 0
        self.lang = None      # None: no <html lang>
        self.viewport = False
        self.ids = []
        self.headings = []
        self.jsonld = []      # texts of ld+json blocks
        self._jsonld = None
        self.links = []       # dict(kind, href, nofollow, anchor, in_template)
        self._a = None
        self.names = []       # <a name> values, outside <template>
        self.alternates = []  # (hreflang, href as written) of <link rel=alternate hreflang>

    # text ------------------------------------------------------------
    def _flush(self, ends_word):
        """A piece of markup: the raw text before it becomes words."""
        if self.raw:
            raw = ''.join(self.raw)
            self.raw = []
            if not self.hidden_c:
                self.cwords += len(CWORD.findall(raw))
            if not self.hidden_v:
                self.vtext.append(html.unescape(raw))
            if self._a is not None and not self.hidden_v:
                self._a['text'].append(html.unescape(raw))
            if self._jsonld is not None:
                self._jsonld.append(raw)  # script content is raw text
        if ends_word:
            self.vtext.append('\0')
            if self._a is not None:
                self._a['text'].append(' ')

    def handle_data(self, d):
        self.raw.append(d)

    def handle_entityref(self, name):
        self.raw.append('&%s;' % name)

    def handle_charref(self, name):
        self.raw.append('&#%s;' % name)

    def handle_comment(self, d):
        self._flush(False)

    def handle_decl(self, d):
        self._flush(True)

    def handle_pi(self, d):
        self._flush(True)

    def unknown_decl(self, d):
        self._flush(True)

    # tags ------------------------------------------------------------
    def handle_starttag(self, tag, attrs):
        self._flush(tag not in INLINE)
        a = {}
        for k, v in attrs:
            a.setdefault(k, v if v is not None else '')
        if tag in HIDDEN_VERIFIER:
            self.hidden_v.append(tag)
        if tag in HIDDEN_CRAWLER:
            self.hidden_c.append(tag)
        if tag in LINK_ATTR and LINK_ATTR[tag] in a:
            if tag == 'a' and self._a is not None:   # an <a> closes an open one
                self._end_a()
            link = dict(kind='iframe' if tag == 'frame' else tag, href=a[LINK_ATTR[tag]].strip(),
                        nofollow='nofollow' in [w.lower() for w in re.split(r'[ \t\n\f\r]+', a.get('rel', ''))],
                        anchor=' '.join(a.get('alt', '').split()) if tag == 'area' else None,
                        in_template=self.template > 0)
            if tag == 'a':
                link['text'] = []
                self._a = link
            else:
                self.links.append(link)
        # Ids: every element of the document, a <template> itself too
        # (what it holds is not the document's).
        if not self.template and 'id' in a and a['id'].strip():
            self.ids.append(a['id'].strip())
        if tag == 'link' and 'hreflang' in a and 'href' in a and 'alternate' in [
                w.lower() for w in re.split(r'[ \t\n\f\r]+', a.get('rel', ''))]:
            self.alternates.append((a['hreflang'].strip(), a['href'].strip()))
        if tag == 'template':
            self.template += 1
            return
        if self.template:
            return
        if tag == 'a' and a.get('name', '').strip():
            self.names.append(a['name'].strip())
        if tag == 'svg':
            self.svg += 1
        elif tag == 'img':
            src = a['src'].strip() if 'src' in a else ''
            self.images.append((src, a.get('alt'), 'width' in a, 'height' in a))
        elif tag == 'title' and self.svg == 0:
            self.titles += 1
        elif tag == 'html' and 'lang' in a and self.lang is None:
            self.lang = a['lang'].strip()
        elif tag == 'meta' and a.get('name', '').strip().lower() == 'viewport':
            self.viewport = True
        elif tag in ('h1', 'h2', 'h3', 'h4', 'h5', 'h6'):
            self.headings.append(int(tag[1]))
        elif tag == 'script' and a.get('type', '').strip().lower() == 'application/ld+json':
            self._jsonld = []

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def _end_a(self):
        a = self._a
        self._a = None
        a['anchor'] = ' '.join(''.join(a.pop('text')).split())
        self.links.append(a)

    def handle_endtag(self, tag):
        self._flush(tag not in INLINE)
        for stack in (self.hidden_v, self.hidden_c):
            if tag in stack:
                while stack and stack.pop() != tag:
                    pass
        if tag == 'a' and self._a is not None:
            self._end_a()
        if tag == 'template':
            self.template = max(0, self.template - 1)
        elif tag == 'svg' and self.svg and not self.template:
            self.svg -= 1
        elif tag == 'script' and self._jsonld is not None:
            self.jsonld.append(''.join(self._jsonld))
            self._jsonld = None

    def close(self):
        super().close()
        self._flush(True)
        if self._a is not None:
            self._end_a()
        if self._jsonld is not None:
            self.jsonld.append(''.join(self._jsonld))

    def words(self):
        return len(UWORD.findall(''.join(self.vtext)))


def page_facts(sha):
    """Runs in a worker: the facts of one body (by its SHA-256)."""
    with open(body_path(sha), 'rb') as f:
        body = f.read()
    p = Page()
    p.feed(body.decode('utf-8', 'replace'))
    p.close()
    text = ''.join(p.vtext)
    return sha, dict(
        images=p.images, titles=p.titles, lang=p.lang, viewport=p.viewport,
        ids=p.ids, headings=p.headings, jsonld=p.jsonld, links=p.links,
        names=p.names, alternates=p.alternates,
        words=len(UWORD.findall(text)), cwords=p.cwords,
        # what makes the two counts differ, for the report
        refs=len(re.findall(r'&#?\w+;', body.decode('utf-8', 'replace'))),
    )


# ------------------------------------------------------------ site data

idx = load_index()
audit_all = load_audit()
os.makedirs(ROOT + '/results', exist_ok=True)
OWN = urlsplit(START)


def instant(r):
    return r['status'] == 200 and r.get('refresh_delay') is not None and r['refresh_delay'] <= 1 and r.get('refresh_url')


def html_page(r):
    """What the audit's content checks read: 200, HTML, not an instant refresh."""
    return r['status'] == 200 and r['ctype'].split(';')[0].strip().lower() in ('text/html', 'application/xhtml+xml') and not instant(r)


def read_pages():
    """Facts of every page whose links the crawl reads (200 and HTML,
    instant refreshes too), parsed once per distinct body."""
    recs = [r for r in idx.values() if r['status'] == 200 and 'html' in r['ctype']]
    shas = sorted({r['sha'] for r in recs})
    jobs = int(os.environ.get('JOBS', os.cpu_count() or 1))
    with Pool(jobs) as pool:
        facts = dict(pool.imap_unordered(page_facts, shas, chunksize=16))
    return recs, facts


RECS, FACTS = read_pages()
HTML = [r for r in RECS if html_page(r)]
DISAGREE = {}


def same_page(r, href):
    """The crawler's same_page: an empty href, or a link to the page itself
    (a fragment of it included)."""
    if href == '':
        return True
    t, _ = resolve(r.get('base') or r['url'], href)
    try:
        return t is not None and norm(t) == r['url']
    except Exception:
        return False


def target(r, href):
    """The normalised http(s) target of an href, or None."""
    t, _ = resolve(r.get('base') or r['url'], href)
    if t is None:
        return None
    try:
        return norm(t)
    except Exception:
        return None


def own(url):
    """On the crawled origin (the crawl's scope is its host)."""
    return url is not None and url.startswith(ORIGIN + '/')


def robots_nofollow(r):
    says = [c.lower() for c in r.get('robots', []) if c] + [(r.get('xrobots') or '').lower()]
    return any('nofollow' in s or 'none' in [w.strip() for w in s.split(',')] for s in says)


def noindex(r):
    says = [c.lower() for c in r.get('robots', []) if c] + [(r.get('xrobots') or '').lower()]
    return any('noindex' in s or 'none' in [w.strip() for w in s.split(',')] for s in says)


def canonical_elsewhere(r):
    c = r.get('canonicals') or []
    if not c or c[0] is None:
        return False
    t = target(r, c[0])
    return t is not None and t != r['url']


# ------------------------------------------------------------ judging

def judge(code, mine, key=lambda f: norm(f['url']), compare=None, how='all'):
    """mine: the verifier's findings, key -> what it read. A finding is
    true when its key is in mine; compare(f, detail) -> None or why the
    message or related differ (a note, not a verdict)."""
    if code not in audit_all:
        print('%-32s not in audit.json (an audit without this check?)' % code, flush=True)
        return None
    fs = audit_all[code]['findings']
    true = false = 0
    fps = []
    notes = collections.Counter()
    examples = collections.defaultdict(list)
    for f in fs:
        k = key(f)
        if k in mine:
            true += 1
            why = compare(f, mine[k]) if compare else None
            if why:
                notes['message_differs'] += 1
                if len(examples['message_differs_examples']) < 20:
                    examples['message_differs_examples'].append([f['url'], f.get('message'), why])
        else:
            false += 1
            fps.append([f['url'], f.get('message'), explain.get(code, lambda k: '')(k)])
    theirs = {key(f) for f in fs}
    n = dict(notes)
    n.update(examples)
    return V_result(code, true, false, how, set(mine), theirs, n, fps)


explain = {}  # code -> function(key) giving what the verifier read, for false findings


def V_result(code, true, false, verified, mine, theirs, notes, fps):
    """verify.py's result line and file, for one check."""
    out = dict(code=code, findings=audit_all[code]['count'], verified=verified, true=true, false=false,
               precision=(true / (true + false)) if true + false else None)
    tp = len(mine & theirs)
    out['verifier_findings'] = len(mine)
    out['recall'] = tp / len(mine) if mine else None
    out['missed'] = sorted(mine - theirs)[:50]
    out['missed_count'] = len(mine - theirs)
    out['extra'] = sorted(theirs - mine)[:50]
    out['extra_count'] = len(theirs - mine)
    out['false_examples'] = fps[:50]
    out['notes'] = notes
    json.dump(out, open('%s/results/%s.json' % (ROOT, code.replace('/', '_')), 'w'), indent=1)
    print('%-32s findings %6d verified %-8s true %6d false %5d precision %s recall %s (verifier %d, missed %d)  %s' % (
        code, out['findings'], verified, true, false,
        '%.4f' % out['precision'] if out['precision'] is not None else '-',
        '%.4f' % out['recall'] if out['recall'] is not None else '-',
        len(mine), out['missed_count'],
        {k: v for k, v in notes.items() if not isinstance(v, list)}), flush=True)
    return out


def count_in(message, pattern):
    m = re.search(pattern, message or '')
    return int(m.group(1)) if m else None


# ------------------------------------------------------------ link checks

def dead_end():
    """HTML pages with no link (a, area, frame) to another page of the site;
    the message counts every link of those kinds (same-page ones too)."""
    mine = {}
    for r in HTML:
        links = FACTS[r['sha']]['links']
        if not any(own(target(r, l['href'])) and not same_page(r, l['href']) for l in links):
            mine[r['url']] = len(links)
    explain['links/dead-end'] = lambda u: 'links to the site: %r' % [target(idx[u], l['href']) for l in FACTS[idx[u]['sha']]['links']][:5] if u in idx and idx[u]['sha'] in FACTS else 'not an HTML page the verifier read'

    def cmp(f, n):
        c = count_in(f['message'], r'\((\d+) link')
        return None if c == n else 'message says %s links, verifier counts %d' % (c, n)
    return judge('links/dead-end', mine, compare=cmp)


def too_many():
    """HTML pages with more than 1,000 links (a, area, frames), links to the
    page itself (and empty hrefs) left out, to anywhere (mailto: too)."""
    mine = {}
    counts = {}
    for r in HTML:
        n = sum(1 for l in FACTS[r['sha']]['links'] if not same_page(r, l['href']))
        counts[r['url']] = n
        if n > 1000:
            mine[r['url']] = n
    explain['links/too-many'] = lambda u: 'verifier counts %s links' % counts.get(u)
    return judge('links/too-many', mine, compare=lambda f, n: None if count_in(f['message'], r'^(\d+) links') == n else 'verifier counts %d' % n)


def is_private(url):
    host = (urlsplit(url).hostname or '').rstrip('.').lower()
    if host == 'localhost' or host.endswith('.localhost'):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return ip.is_loopback or ip.is_link_local or ip.is_unspecified or any(
            ip in ipaddress.ip_network(n) for n in ('10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'))
    return ip.is_loopback or ip.is_unspecified or ip in ipaddress.ip_network('fc00::/7') or ip in ipaddress.ip_network('fe80::/10')


def private_address():
    """Link targets (a, area, frames; not same-page) on localhost or a
    private/loopback/link-local/unspecified address, other than the
    crawled origin; one finding per target URL, with its linking pages."""
    mine = collections.defaultdict(set)
    for r in RECS:
        for l in FACTS[r['sha']]['links']:
            t = target(r, l['href'])
            if t and not own(t) and not same_page(r, l['href']) and is_private(t):
                mine[t].add(r['url'])
    return judge('links/private-address', dict(mine),
                 compare=lambda f, srcs: None if f.get('link_count') in (None, len(srcs)) else 'link_count %s, verifier %d linking pages' % (f.get('link_count'), len(srcs)))


def follow_and_nofollow():
    """Pages (no page-level nofollow) that link one page of the site both
    with rel=nofollow and without it; related = those targets."""
    mine = {}
    for r in RECS:
        if robots_nofollow(r):
            continue
        marked, plain = set(), set()
        for l in FACTS[r['sha']]['links']:
            t = target(r, l['href'])
            if not own(t) or same_page(r, l['href']):
                continue
            (marked if l['nofollow'] else plain).add(t)
        both = marked & plain
        if both:
            mine[r['url']] = both

    def cmp(f, both):
        rel = {norm(u) for u in (f.get('related') or [])}
        return None if rel == both or not rel else 'related %d targets, verifier %d (only theirs %s, only mine %s)' % (
            len(rel), len(both), sorted(rel - both)[:3], sorted(both - rel)[:3])
    return judge('links/follow-and-nofollow', mine, compare=cmp)


GENERIC = {
    'click here', 'click', 'here', 'read more', 'more', 'learn more', 'more info', 'more information',
    'see more', 'this page', 'this link', 'link', 'continue', 'continue reading', 'details', 'go',
    'cliquez ici', 'ici', 'en savoir plus', 'lire la suite', 'plus',
    'hier klicken', 'hier', 'mehr', 'weiterlesen', 'mehr erfahren',
    'haga clic aquí', 'haz clic aquí', 'aquí', 'leer más', 'más',
    'clicca qui', 'qui', 'leggi di più', 'di più',
    'clique aqui', 'aqui', 'saiba mais', 'leia mais',
    'klik hier', 'lees meer', 'meer',
}


def generic_text(anchor):
    """The documented normalisation: trimmed, final '.', ':', '…', '»', '>'
    (and arrows) left out, trimmed again, lower case."""
    return anchor.strip().rstrip('.:…»>›→').strip().lower()


def non_descriptive_anchor():
    """Pages with <a> links (not same-page) whose whole text is a generic
    phrase; message: how many links, which phrases (related)."""
    mine = {}
    for r in RECS:
        n, phrases = 0, []
        for l in FACTS[r['sha']]['links']:
            if l['kind'] != 'a' or same_page(r, l['href']) or not l['anchor'] or len(l['anchor']) > 40:
                continue
            g = generic_text(l['anchor'])
            if g in GENERIC:
                n += 1
                if g not in phrases:
                    phrases.append(g)
        if n:
            mine[r['url']] = (n, phrases)

    def cmp(f, v):
        n, phrases = v
        c = count_in(f['message'], r'^(\d+) link')
        if c != n or (f.get('related') or []) != phrases:
            return 'verifier %d links %r' % (n, phrases)
    return judge('links/non-descriptive-anchor', mine, compare=cmp)


def protocol_relative():
    """Pages with links (a, area, frames) whose href, trimmed, starts with
    '//' (outside <template>); related = the first."""
    mine = {}
    every = {}
    for r in HTML:
        ls = [l['href'] for l in FACTS[r['sha']]['links'] if l['href'].startswith('//')]
        if ls:
            every[r['url']] = ls
        ls2 = [l['href'] for l in FACTS[r['sha']]['links'] if l['href'].startswith('//') and not l['in_template']]
        if ls2:
            mine[r['url']] = ls2
    if set(every) != set(mine):
        DISAGREE['links/protocol-relative: pages whose only // links are in <template>'] = sorted(set(every) - set(mine))[:20]

    def cmp(f, ls):
        c = count_in(f['message'], r'^(\d+) link')
        if c != len(ls) or (f.get('related') or [None])[0] != ls[0]:
            return 'verifier %d, first %r' % (len(ls), ls[0])
    return judge('links/protocol-relative', mine, compare=cmp)


# ------------------------------------------------------------ page checks

def simple(code, pred, pages=None, compare=None):
    """pred(r, facts) -> detail or None (None: not a finding)."""
    mine = {}
    for r in (pages if pages is not None else HTML):
        d = pred(r, FACTS[r['sha']])
        if d is not None:
            mine[r['url']] = d
    explain[code] = lambda u: ('verifier read %r' % (pred(idx[u], FACTS[idx[u]['sha']]),)
                               if u in idx and idx[u]['sha'] in FACTS else 'not a page the verifier read')
    return judge(code, mine, compare=compare)


def first_src(items):
    return items[0][0] if items else None


def images(kind):
    def pick(F):
        if kind == 'missing-alt':
            return [i for i in F['images'] if i[1] is None]
        if kind == 'long-alt':
            return [i for i in F['images'] if i[1] is not None and len(i[1].strip()) > 100]
        return [i for i in F['images'] if not (i[2] and i[3])]

    def pred(r, F):
        bad = pick(F)
        return (len(bad), len(F['images']), first_src(bad)) if bad else None

    def cmp(f, d):
        m = re.match(r'(\d+) of (\d+) image', f['message'] or '')
        if not m or (int(m.group(1)), int(m.group(2))) != d[:2] or (f.get('related') or [None])[0] != d[2]:
            return 'verifier %d of %d, first %r' % d
    return simple('images/' + kind, pred, compare=cmp)


# BCP 47 (RFC 5646, section 2.1) well-formedness, written from the ABNF:
# langtag / privateuse / grandfathered, case-insensitive.
_A, _D, _N = '[a-z]', '[0-9]', '[a-z0-9]'
LANGTAG = (r'(?P<language>{A}{{2,3}}(?:-{A}{{3}}){{0,3}}|{A}{{4}}|{A}{{5,8}})'
           r'(?:-{A}{{4}})?'                       # script
           r'(?:-(?:{A}{{2}}|{D}{{3}}))?'          # region
           r'(?:-(?:{N}{{5,8}}|{D}{N}{{3}}))*'     # variants
           r'(?:-[0-9a-wy-z](?:-{N}{{2,8}})+)*'    # extensions
           r'(?:-x(?:-{N}{{1,8}})+)?').format(A=_A, D=_D, N=_N)
PRIVATEUSE = r'x(?:-{N}{{1,8}})+'.format(N=_N)
GRANDFATHERED = {
    'en-gb-oed', 'i-ami', 'i-bnn', 'i-default', 'i-enochian', 'i-hak', 'i-klingon', 'i-lux', 'i-mingo',
    'i-navajo', 'i-pwn', 'i-tao', 'i-tay', 'i-tsu', 'sgn-be-fr', 'sgn-be-nl', 'sgn-ch-de',
    'art-lojban', 'cel-gaulish', 'no-bok', 'no-nyn', 'zh-guoyu', 'zh-hakka', 'zh-min', 'zh-min-nan', 'zh-xiang',
}
LANG_RE = re.compile(r'(?:%s|%s)\Z' % (LANGTAG, PRIVATEUSE), re.I)


def lang_ok(tag):
    return bool(LANG_RE.match(tag)) or tag.lower() in GRANDFATHERED


def headings_skip(levels):
    for a, b in zip(levels, levels[1:]):
        if b > a + 1:
            return 'h%d → h%d' % (a, b)
    return None


def duplicate_ids(ids):
    """Ids on more than one element: how many, and the first to repeat."""
    seen, rep = set(), []
    for i in ids:
        if i in seen and i not in rep:
            rep.append(i)
        seen.add(i)
    return rep


def jsonld_error(text):
    """Why a block is not JSON (strict: no NaN/Infinity), or None."""
    def bad_constant(c):
        raise ValueError('not JSON: %s' % c)
    try:
        json.loads(text, parse_constant=bad_constant)
        return None
    except ValueError as e:
        return str(e)


def page_checks(codes):
    run = {
        'images/missing-alt': lambda: images('missing-alt'),
        'images/long-alt': lambda: images('long-alt'),
        'images/missing-size': lambda: images('missing-size'),
        'content/multiple-description': lambda: simple(
            'content/multiple-description', lambda r, F: len(r.get('descriptions', [])) if len(r.get('descriptions', [])) > 1 else None,
            compare=lambda f, n: None if count_in(f['message'], r'^(\d+) meta') == n else 'verifier %d' % n),
        'content/multiple-title': lambda: simple(
            'content/multiple-title', lambda r, F: F['titles'] if F['titles'] > 1 else None,
            compare=lambda f, n: None if count_in(f['message'], r'^(\d+) <title>') == n else 'verifier %d' % n),
        'content/lang-missing': lambda: simple(
            'content/lang-missing', lambda r, F: ('absent' if F['lang'] is None else 'empty') if not F['lang'] else None,
            compare=lambda f, d: None if ('no lang' in f['message']) == (d == 'absent') else 'verifier: %s' % d),
        'content/lang-invalid': lambda: simple(
            'content/lang-invalid', lambda r, F: F['lang'] if F['lang'] and not lang_ok(F['lang']) else None,
            compare=lambda f, lang: None if f['message'].startswith('lang="%s"' % lang) else 'verifier lang %r' % lang),
        'content/viewport-missing': lambda: simple(
            'content/viewport-missing', lambda r, F: True if not F['viewport'] else None),
        'content/duplicate-id': lambda: simple(
            'content/duplicate-id', lambda r, F: duplicate_ids(F['ids']) or None,
            compare=lambda f, rep: None if count_in(f['message'], r'^(\d+) id') == len(rep) and (f.get('related') or [None])[0] == rep[0]
            else 'verifier %d, first %r' % (len(rep), rep[0])),
        'content/heading-skip': lambda: simple(
            'content/heading-skip', lambda r, F: headings_skip(F['headings']),
            compare=lambda f, s: None if f['message'].endswith(s) else 'verifier %s' % s),
        'structured-data/invalid-json-ld': lambda: simple(
            'structured-data/invalid-json-ld',
            lambda r, F: next(('block %d: %s' % (i + 1, e) for i, e in enumerate(jsonld_error(t) for t in F['jsonld']) if e), None),
            compare=lambda f, s: None if ('block %s:' % s.split(':')[0].split()[1]) in f['message'] else 'verifier %s' % s),
        'content/thin': thin,
        'structured-data/missing-required': lambda: simple(
            'structured-data/missing-required', lambda r, F: missing_required_of(F),
            compare=lambda f, m: None if count_in(f['message'], r'^(\d+) JSON-LD') == len(m) and f['message'].endswith(m[0])
            else 'verifier %d, first %r' % (len(m), m[0])),
        'structured-data/conflicting-context': lambda: simple(
            'structured-data/conflicting-context', lambda r, F: contexts_of(F),
            compare=lambda f, k: None if f['message'].endswith(', '.join(k)) else 'verifier %r' % k),
        'hreflang/relative': lambda: simple(
            'hreflang/relative', lambda r, F: [h for _, h in F['alternates'] if relative_href(h)] or None,
            compare=lambda f, hs: None if count_in(f['message'], r'^(\d+) hreflang') == len(hs) else 'verifier %d' % len(hs)),
    }
    for code in codes:
        if code in run:
            run[code]()


def thin():
    """Indexable HTML pages (no noindex, no canonical elsewhere) with fewer
    than 200 words (the verifier's count); the crawler-style count is
    computed beside it and the pages where the verdicts differ reported."""
    code = 'content/thin'
    mine, crawler = {}, {}
    for r in HTML:
        if noindex(r) or canonical_elsewhere(r):
            continue
        F = FACTS[r['sha']]
        if F['words'] < 200:
            mine[r['url']] = (F['words'], F['cwords'])
        if F['cwords'] < 200:
            crawler[r['url']] = (F['words'], F['cwords'])
    only_v = sorted(set(mine) - set(crawler))
    only_c = sorted(set(crawler) - set(mine))
    DISAGREE['content/thin: thin by the verifier only (words, crawler-style words, charrefs in body)'] = [
        [u, mine[u][0], mine[u][1], FACTS[idx[u]['sha']]['refs']] for u in only_v[:20]] + [['count', len(only_v)]]
    DISAGREE['content/thin: thin by the crawler-style count only'] = [
        [u, crawler[u][0], crawler[u][1], FACTS[idx[u]['sha']]['refs']] for u in only_c[:20]] + [['count', len(only_c)]]
    print('  content/thin: verifier %d thin pages, crawler-style reading %d; only verifier %d, only crawler-style %d' % (
        len(mine), len(crawler), len(only_v), len(only_c)), flush=True)
    explain[code] = lambda u: ('verifier %d words, crawler-style %d' % (FACTS[idx[u]['sha']]['words'], FACTS[idx[u]['sha']]['cwords'])
                               if u in idx and idx[u]['sha'] in FACTS else 'not a page the verifier read')
    out = judge(code, mine, compare=lambda f, w: None if count_in(f['message'], r'^(\d+) words') == w[0] else
                'message %s, verifier %d, crawler-style %d' % (count_in(f['message'], r'^(\d+) words'), w[0], w[1]))
    if out is not None:
        # How the finding's count compares with the two readings.
        fs = audit_all[code]['findings']
        agree = collections.Counter()
        for f in fs:
            u = norm(f['url'])
            if u in idx and idx[u]['sha'] in FACTS:
                c = count_in(f['message'], r'^(\d+) words')
                F = FACTS[idx[u]['sha']]
                agree['= verifier' if c == F['words'] else '= crawler-style' if c == F['cwords'] else 'neither'] += 1
        print('  content/thin: finding counts %s' % dict(agree), flush=True)
    return out


# ------------------------------------------------------------ fragments

def element_fragment(href):
    """The fragment a browser looks an element up by: after the first '#',
    a text directive (':~:') cut off; None for none, '' and 'top'."""
    if '#' not in href:
        return None
    frag = href.split('#', 1)[1].split(':~:', 1)[0]
    return None if frag == '' or frag.lower() == 'top' else frag


LINE_ANCHOR = re.compile(r'L?[0-9]+(-L?[0-9]+)?')


def missing_fragment():
    """<a>/<area> links whose fragment is neither an id (outside <template>)
    nor an <a name> of the target HTML page, as written or percent-decoded;
    the first 1,000 such links of each page; one per page, target and
    fragment."""
    code = 'links/missing-fragment'
    mine, anchors, capped = {}, {}, 0
    for r in RECS:
        n = 0
        for l in FACTS[r['sha']]['links']:
            frag = element_fragment(l['href']) if l['kind'] in ('a', 'area') else None
            if frag is None:
                continue
            n += 1
            if n > 1000:
                capped += 1
                break
            t = target(r, l['href'])
            if t is None or t not in idx or not html_page(idx[t]):
                continue
            sha = idx[t]['sha']
            if sha not in anchors:
                anchors[sha] = set(FACTS[sha]['ids']) | set(FACTS[sha]['names'])
            if len(anchors[sha]) > 10000:
                continue
            if frag in anchors[sha] or unquote(frag, errors='replace') in anchors[sha]:
                continue
            if LINE_ANCHOR.fullmatch(frag):
                continue
            mine[(r['url'], t + '#' + frag)] = True
    print('  links/missing-fragment: %d page(s) with over 1,000 links with a fragment' % capped, flush=True)

    def key(f):
        t, _, frag = (f.get('related') or [''])[0].partition('#')
        return (norm(f['url']), norm(t) + '#' + frag)
    explain[code] = lambda k: 'verifier: the target has that id or name, or is not an HTML page it read'
    return judge(code, mine, key=key)


# ------------------------------------------------------------ structured data

def schema_types(node):
    t = node.get('@type')
    ts = t if isinstance(t, list) else [t]
    out = []
    for x in ts:
        if isinstance(x, str):
            x = x.strip()
            for p in ('https://schema.org/', 'http://schema.org/', 'schema:'):
                if x.startswith(p):
                    x = x[len(p):]
                    break
            out.append(x)
    return out


def has(node, k):
    v = node.get(k)
    return not (v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, (list, dict)) and not v))


def listed(v):
    return v if isinstance(v, list) else [v]


def lacking(t, node):
    """The documented table (docs/audit.md): what an item of type t lacks,
    or None for a type outside it."""
    if t == 'Product':
        m = [k for k in ('name',) if not has(node, k)]
        if not any(has(node, k) for k in ('offers', 'review', 'aggregateRating')):
            m.append('offers, review or aggregateRating')
        return m
    if t == 'Recipe':
        return [k for k in ('name', 'image') if not has(node, k)]
    if t == 'Event':
        return [k for k in ('name', 'startDate', 'location') if not has(node, k)]
    if t == 'JobPosting':
        m = [k for k in ('title', 'description', 'datePosted', 'hiringOrganization') if not has(node, k)]
        remote = any(isinstance(x, str) and x.strip().upper() == 'TELECOMMUTE' for x in listed(node.get('jobLocationType')))
        if not remote and not has(node, 'jobLocation'):
            m.append('jobLocation')
        return m
    if t == 'BreadcrumbList':
        if not has(node, 'itemListElement'):
            return ['itemListElement']
        items = listed(node['itemListElement'])
        m = []
        for i, li in enumerate(items, 1):
            if not isinstance(li, dict):
                m += ['position in itemListElement %d' % i, 'name in itemListElement %d' % i]
                continue
            named = has(li, 'name') or (isinstance(li.get('item'), dict) and has(li['item'], 'name'))
            m += ['%s in itemListElement %d' % (k, i) for k, bad in (
                ('position', not has(li, 'position')), ('name', not named),
                ('item', i < len(items) and not has(li, 'item'))) if bad]
        return m
    if t == 'FAQPage':
        if not has(node, 'mainEntity'):
            return ['mainEntity']
        m = []
        for i, q in enumerate(listed(node['mainEntity']), 1):
            if not isinstance(q, dict):
                m.append('name in mainEntity %d' % i)
                continue
            if not has(q, 'name'):
                m.append('name in mainEntity %d' % i)
            if not has(q, 'acceptedAnswer'):
                m.append('acceptedAnswer in mainEntity %d' % i)
            elif any(not isinstance(a, dict) or not has(a, 'text') for a in listed(q['acceptedAnswer'])):
                m.append('acceptedAnswer text in mainEntity %d' % i)
        return m
    return None


def ld_items(block):
    """Top-level objects of a block, each with its @graph members."""
    tops = [block] if isinstance(block, dict) else [x for x in block if isinstance(x, dict)] if isinstance(block, list) else []
    return tops


def parsed_blocks(F):
    for i, text in enumerate(F['jsonld'][:], 1):
        try:
            yield i, json.loads(text[:1 << 20])
        except ValueError:
            continue


def missing_required_of(F):
    found = []
    for i, block in parsed_blocks(F):
        for top in ld_items(block):
            nodes = [top] + [g for g in listed(top.get('@graph')) if isinstance(g, dict)]
            for node in nodes:
                for t in schema_types(node):
                    m = lacking(t, node)
                    if m:
                        found.append('block %d: %s lacks %s' % (i, t, ', '.join(m)))
    return found or None


def vocab(iri):
    s = iri.strip().lower()
    for p in ('https://', 'http://'):
        if s.startswith(p):
            s = s[len(p):]
            break
    if s.startswith('www.'):
        s = s[4:]
    if s == 'schema.org' or s.startswith('schema.org/') or s.startswith('schema.org#'):
        return 'schema.org'
    return s.rstrip('/#')


def contexts_of(F):
    keys = []
    for _, block in parsed_blocks(F):
        for top in ld_items(block):
            if '@context' not in top:
                continue
            names = set()
            for c in listed(top['@context']):
                v = c if isinstance(c, str) else c.get('@vocab') if isinstance(c, dict) else None
                if isinstance(v, str) and vocab(v):
                    names.add(vocab(v))
            k = ' + '.join(sorted(names))
            if k and k not in keys:
                keys.append(k)
    return keys if len(keys) > 1 else None


# ------------------------------------------------------------ hreflang

def hreflang_links():
    """(source record, code, target URL, href as written) of every hreflang
    alternate of the pages whose links the crawl reads."""
    for r in RECS:
        for code, href in FACTS[r['sha']]['alternates']:
            yield r, code, target(r, href), href


def primary(tag):
    return tag.split('-')[0].lower()


def lang_mismatch():
    code = 'hreflang/lang-mismatch'
    mine = {}
    for r, c, t, _ in hreflang_links():
        if t is None or t not in idx or not html_page(idx[t]) or c.lower() == 'x-default':
            continue
        lang = FACTS[idx[t]['sha']]['lang']
        if not lang or not lang_ok(lang) or '_' in c or not re.match(r'^[A-Za-z]{2,3}(-|$)', c):
            continue
        if primary(lang) != primary(c):
            mine.setdefault(t, set()).add(c)
    return judge(code, mine)


def hreflang_pairs(code, pred):
    mine = {}
    for r, c, t, _ in hreflang_links():
        if t is not None and t in idx and pred(idx[t]):
            mine[(r['url'], t)] = True
    return judge(code, mine, key=lambda f: (norm(f['url']), norm((f.get('related') or [''])[0])))


def relative_href(h):
    return not re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:', h.strip())


# ------------------------------------------------------------ not applicable here

def not_judged(code, why):
    if code not in audit_all:
        print('%-32s not in audit.json' % code, flush=True)
        return
    fs = audit_all[code]['findings']
    print('%-32s findings %6d not judged: %s%s' % (code, len(fs), why,
          ('; first: %s' % [f['url'] for f in fs[:5]]) if fs else ''), flush=True)


def security_headers():
    """Only HTTPS pages can be findings; the site is served over http://."""
    code = 'security/missing-headers'
    if code not in audit_all:
        print('%-32s not in audit.json' % code, flush=True)
        return
    fs = audit_all[code]['findings']
    https = [f for f in fs if f['url'].lower().startswith('https://')]
    print('%-32s findings %6d not applicable (site served over http://): %d on http:// pages (false by definition), %d on https://' % (
        code, len(fs), len(fs) - len(https), len(https)), flush=True)


def main(codes):
    codes = codes or CHECKS
    link = {
        'links/dead-end': dead_end, 'links/too-many': too_many, 'links/private-address': private_address,
        'links/follow-and-nofollow': follow_and_nofollow, 'links/non-descriptive-anchor': non_descriptive_anchor,
        'links/protocol-relative': protocol_relative, 'links/missing-fragment': missing_fragment,
        'hreflang/lang-mismatch': lang_mismatch,
        'hreflang/to-non-canonical': lambda: hreflang_pairs(
            'hreflang/to-non-canonical', lambda t: html_page(t) and canonical_elsewhere(t)),
        'hreflang/to-noindex': lambda: hreflang_pairs(
            'hreflang/to-noindex', lambda t: t['status'] == 200 and noindex(t)),
    }
    print('pages read: %d HTML pages (%d distinct bodies), %d pages whose links count' % (
        len(HTML), len({r['sha'] for r in HTML}), len(RECS)), flush=True)
    for code in codes:
        if code in link:
            link[code]()
    page_checks(codes)
    for code in ('sitemaps/missing-indexable', 'sitemaps/listed-twice'):
        if code in codes:
            not_judged(code, "the site's sitemap (/sitemap.txt) lists only doc.rust-lang.org URLs, not the served origin's")
    if 'security/missing-headers' in codes:
        security_headers()
    json.dump(DISAGREE, open(ROOT + '/results/breadth_disagreements.json', 'w'), indent=1, ensure_ascii=False)
    for k, v in DISAGREE.items():
        print('  %s: %s' % (k, v[:5]), flush=True)


if __name__ == '__main__':
    main(sys.argv[1:])
