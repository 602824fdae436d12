"""Crawl one site with Scrapy and print the URLs it fetched with status 200,
one per line, on standard output; the count and the wall time on standard
error. The peer of `scripts/bench-crawl --peers`.

Usage: python3 crawl.py URL CONCURRENCY LIMIT

Scrapy as its documentation sets it up for a broad crawl of one site:
robots.txt obeyed, no delay, no AutoThrottle, cookies and the telnet console
off, links taken from every <a href> and followed through Scrapy's own
duplicate filter.
"""

import sys
import time

import scrapy
from scrapy.crawler import CrawlerProcess


def main():
    if len(sys.argv) != 4:
        print("usage: crawl.py URL CONCURRENCY LIMIT", file=sys.stderr)
        sys.exit(2)
    start_url, concurrency, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fetched = []

    class SiteSpider(scrapy.Spider):
        name = "site"
        start_urls = [start_url]
        allowed_domains = [start_url.split("/")[2].split(":")[0]]

        def parse(self, response):
            if response.status == 200:
                fetched.append(response.url)
            if not isinstance(response, scrapy.http.HtmlResponse):
                return
            yield from response.follow_all(css="a::attr(href)", callback=self.parse)

    process = CrawlerProcess(
        settings={
            "ROBOTSTXT_OBEY": True,
            "CONCURRENT_REQUESTS": concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
            "CONCURRENT_REQUESTS_PER_IP": 0,
            "DOWNLOAD_DELAY": 0,
            "AUTOTHROTTLE_ENABLED": False,
            "COOKIES_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "RETRY_ENABLED": False,
            "REDIRECT_ENABLED": True,
            "CLOSESPIDER_PAGECOUNT": limit,
            "LOG_LEVEL": "ERROR",
            "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
            "USER_AGENT": "scrapy-bench (+https://scrapy.org)",
        }
    )
    began = time.monotonic()
    process.crawl(SiteSpider)
    process.start()
    elapsed = time.monotonic() - began
    sys.stdout.write("".join(u + "\n" for u in fetched))
    print(f"scrapy: {len(fetched)} URLs in {elapsed:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
