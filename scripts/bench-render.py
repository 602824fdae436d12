#!/usr/bin/env python3
"""`crawl --render` against the floor the browser sets.

Three parts, used by scripts/bench-render:

  site DIR PAGES        writes a site built to need rendering: each page a
                        shell whose script fetches the page's data and
                        writes its text and its links (the home page's raw
                        HTML links the first page only: the rest is found
                        by rendering)
  plain URLLIST TABS    renders each URL of the list in headless Chromium
                        through the DevTools protocol, TABS at a time, with
                        botwarden's wait rule (the load event, then 500 ms
                        without a request in flight) and reads the DOM:
                        nothing else (the floor)
  measure -- CMD...     runs CMD, samples every 50 ms the CPU time and the
                        resident memory of CMD itself and of every process
                        under it (Chromium's), and prints them as JSON

The plain driver needs the `websockets` package (scripts/bench-render
installs it in a virtual environment of its own).
"""

import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

QUIET = 0.5
BUDGET = 20.0
WORDS = 300
LINKS = 5


def site(root, pages):
    os.makedirs(os.path.join(root, "p"), exist_ok=True)
    os.makedirs(os.path.join(root, "data"), exist_ok=True)
    shell = (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Page {i}</title>"
        '<link rel=stylesheet href="/style.css"><script src="/app.js" defer></script>'
        '</head><body data-page="{i}"><div id=app></div></body></html>'
    )
    for i in range(pages):
        with open(os.path.join(root, "p", f"{i}.html"), "w") as f:
            f.write(shell.format(i=i))
        words = " ".join(f"w{i}x{k}" for k in range(WORDS))
        links = [f"/p/{(i + d) % pages}.html" for d in range(1, LINKS + 1)]
        with open(os.path.join(root, "data", f"{i}.json"), "w") as f:
            json.dump({"title": f"Page {i}", "text": words, "links": links}, f)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write(
            "<!doctype html><html lang=en><head><meta charset=utf-8><title>Home</title></head>"
            '<body><a href="/p/0.html">start</a></body></html>'
        )
    with open(os.path.join(root, "app.js"), "w") as f:
        f.write(
            "fetch('/data/' + document.body.dataset.page + '.json')"
            ".then(function (r) { return r.json(); }).then(function (d) {"
            " var app = document.getElementById('app');"
            " var h = document.createElement('h1'); h.textContent = d.title; app.appendChild(h);"
            " var p = document.createElement('p'); p.textContent = d.text; app.appendChild(p);"
            " d.links.forEach(function (l) { var a = document.createElement('a');"
            " a.href = l; a.textContent = l; app.appendChild(a); });"
            "});\n"
        )
    with open(os.path.join(root, "style.css"), "w") as f:
        f.write("body { font: 16px sans-serif; } h1 { color: #333; }\n")
    with open(os.path.join(root, "robots.txt"), "w") as f:
        f.write("User-agent: *\nAllow: /\n")


async def plain(urls, tabs):
    import websockets  # noqa: PLC0415

    chromium = os.environ.get("BOTWARDEN_CHROMIUM", "chromium")
    profile = tempfile.mkdtemp(prefix="bench-render-plain-")
    proc = subprocess.Popen(
        [
            chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--mute-audio", "--hide-scrollbars",
            "--window-size=1280,1024", f"--user-data-dir={profile}", "--remote-debugging-port=0",
            "about:blank",
        ],
        stderr=subprocess.PIPE,
    )
    ws_url = None
    for line in proc.stderr:
        line = line.decode(errors="replace")
        if "DevTools listening on" in line:
            ws_url = line.split("DevTools listening on", 1)[1].strip()
            break
    ids = itertools.count(1)
    pending = {}
    events = {}

    async with websockets.connect(ws_url, max_size=None) as ws:
        async def reader():
            async for message in ws:
                m = json.loads(message)
                if "id" in m:
                    fut = pending.pop(m["id"], None)
                    if fut:
                        fut.set_result(m)
                elif "sessionId" in m:
                    q = events.get(m["sessionId"])
                    if q:
                        q.put_nowait(m)

        async def call(method, params=None, session=None):
            i = next(ids)
            fut = asyncio.get_running_loop().create_future()
            pending[i] = fut
            msg = {"id": i, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            await ws.send(json.dumps(msg))
            return await fut

        task = asyncio.create_task(reader())
        queue = asyncio.Queue()
        for u in urls:
            queue.put_nowait(u)
        done = []

        async def worker():
            while not queue.empty():
                url = queue.get_nowait()
                target = (await call("Target.createTarget", {"url": "about:blank"}))["result"]["targetId"]
                session = (await call("Target.attachToTarget", {"targetId": target, "flatten": True}))["result"]["sessionId"]
                q = asyncio.Queue()
                events[session] = q
                await call("Page.enable", session=session)
                await call("Network.enable", session=session)
                await call("Page.navigate", {"url": url}, session=session)
                inflight = set()
                loaded = False
                last = time.monotonic()
                deadline = last + BUDGET
                while time.monotonic() < deadline:
                    idle = not inflight and loaded and time.monotonic() - last >= QUIET
                    if idle:
                        break
                    try:
                        m = await asyncio.wait_for(q.get(), 0.025)
                    except asyncio.TimeoutError:
                        continue
                    method = m.get("method")
                    rid = m.get("params", {}).get("requestId")
                    if method == "Page.loadEventFired":
                        loaded = True
                    elif method == "Network.requestWillBeSent":
                        inflight.add(rid)
                        last = time.monotonic()
                    elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                        inflight.discard(rid)
                        last = time.monotonic()
                r = await call(
                    "Runtime.evaluate",
                    {"expression": "document.documentElement.outerHTML", "returnByValue": True},
                    session=session,
                )
                done.append(len(r["result"]["result"].get("value", "")))
                del events[session]
                await call("Target.closeTarget", {"targetId": target})

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(tabs)))
        elapsed = time.monotonic() - started
        task.cancel()
    proc.terminate()
    proc.wait()
    print(json.dumps({"pages": len(done), "seconds": elapsed, "dom_bytes": sum(done)}))


def proc_stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/statm") as f:
            rss_pages = int(f.read().split()[1])
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = (int(fields[11]) + int(fields[12])) / ticks
        return cpu, rss_pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return None


def descendants(root):
    """The processes under `root` (its children, theirs, and so on)."""
    parent = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    out = []
    for pid in parent:
        p = parent.get(pid)
        while p and p != root and p in parent:
            p = parent[p]
        if p == root:
            out.append(pid)
    return out


def measure(cmd):
    started = time.monotonic()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    own_cpu, own_peak, browser_cpu, total_peak = 0.0, 0, {}, 0
    while child.poll() is None:
        s = proc_stat(child.pid)
        if s:
            own_cpu, rss = s
            own_peak = max(own_peak, rss)
        rss_sum = s[1] if s else 0
        for pid in descendants(child.pid):
            b = proc_stat(pid)
            if b:
                browser_cpu[pid] = max(browser_cpu.get(pid, 0.0), b[0])
                rss_sum += b[1]
        total_peak = max(total_peak, rss_sum)
        time.sleep(0.05)
    out = child.stdout.read().decode(errors="replace")
    print(json.dumps({
        "seconds": time.monotonic() - started,
        "own_cpu": own_cpu,
        "own_peak_mib": own_peak / 2**20,
        "browser_cpu": sum(browser_cpu.values()),
        "total_peak_mib": total_peak / 2**20,
        "exit": child.returncode,
        "output": out[-2000:],
    }))


def main():
    what = sys.argv[1]
    if what == "site":
        site(sys.argv[2], int(sys.argv[3]))
    elif what == "plain":
        with open(sys.argv[2]) as f:
            urls = [u.strip() for u in f if u.strip()]
        asyncio.run(plain(urls, int(sys.argv[3])))
    elif what == "measure":
        measure(sys.argv[sys.argv.index("--") + 1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
