//! User-Agent classification on a realistic mix: mostly browsers (uap-core's
//! test User-Agents of ordinary browser families), with a share of crawlers
//! (the crawler lists of `../shared/corpus/ua/derived/`). Compared, in the
//! same run, with the `ua-parser` crate's full extraction (browser, OS and
//! device) with the same uap-core data.
//!
//! - `uncached/*`: every distinct User-Agent of the mix once, no cache;
//! - `cached/zipf`: a stream of 200,000 requests drawn from the mix with a
//!   Zipf law (exponent 1, like the User-Agents of real access logs), through
//!   a classifier with a cache of 10,000 User-Agents;
//! - `cached/apache-log`: the User-Agents of a real access log
//!   (`../shared/corpus/logs/`, 10,000 requests, 558 distinct), in order.
//!
//! Reads `../shared` (or `$BOTWARDEN_SHARED`).

#![allow(clippy::print_stderr, missing_docs)]

#[path = "../tests/it/ua_corpus.rs"]
mod ua_corpus;

use std::collections::HashSet;
use std::hint::black_box;

use botwarden_testdata::Xorshift;
use botwarden_verify::{Classifier, ClassifierBot, UAP_CORE_REGEXES};
use criterion::{Criterion, Throughput};

/// Draws indexes `0..n` with probability proportional to `1 / (rank + 1)`.
struct Zipf(Vec<f64>);

impl Zipf {
    fn new(n: usize) -> Self {
        let mut acc = 0.0;
        let cdf = (1..=n)
            .map(|k| {
                acc += 1.0 / k as f64;
                acc
            })
            .collect::<Vec<_>>();
        let total = acc;
        Self(cdf.into_iter().map(|c| c / total).collect())
    }

    fn draw(&self, rng: &mut Xorshift) -> usize {
        let u = rng.unit();
        self.0.partition_point(|&c| c < u).min(self.0.len() - 1)
    }
}

struct Mix {
    browsers: Vec<String>,
    crawlers: Vec<String>,
}

/// Distinct browser and crawler User-Agents.
fn mix(shared: &std::path::Path, reference: &ua_parser::Extractor<'_>) -> Mix {
    let mut seen = HashSet::new();
    let mut browsers = Vec::new();
    for case in ua_corpus::ua_cases(shared) {
        if ua_corpus::BROWSER_FAMILIES.contains(&case.family.as_str())
            && seen.insert(case.user_agent_string.clone())
        {
            browsers.push(case.user_agent_string);
        }
    }
    for case in ua_corpus::device_cases(shared) {
        let ua = case.user_agent_string;
        let browser = reference
            .ua
            .extract(&ua)
            .is_some_and(|v| ua_corpus::BROWSER_FAMILIES.contains(&v.family.as_ref()));
        if case.family != "Spider" && browser && seen.insert(ua.clone()) {
            browsers.push(ua);
        }
    }
    let mut crawlers = Vec::new();
    for list in ua_corpus::CRAWLER_LISTS {
        for ua in ua_corpus::crawler_list(shared, list) {
            if seen.insert(ua.clone()) {
                crawlers.push(ua);
            }
        }
    }
    let mut rng = Xorshift::new(0x9E37_79B9_7F4A_7C15);
    rng.shuffle(&mut browsers);
    rng.shuffle(&mut crawlers);
    Mix { browsers, crawlers }
}

/// `n` requests, a share `crawler_share` of them crawlers, each side drawn
/// with a Zipf law over its shuffled User-Agents.
fn zipf_stream(mix: &Mix, n: usize, crawler_share: f64) -> Vec<&str> {
    let mut rng = Xorshift::new(Xorshift::SEED);
    let zb = Zipf::new(mix.browsers.len());
    let zc = Zipf::new(mix.crawlers.len());
    (0..n)
        .map(|_| {
            if rng.unit() < crawler_share {
                mix.crawlers[zc.draw(&mut rng)].as_str()
            } else {
                mix.browsers[zb.draw(&mut rng)].as_str()
            }
        })
        .collect()
}

/// This thread's time on a CPU, in nanoseconds (Linux's
/// `/proc/thread-self/schedstat`), or `None` where it cannot be read.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// User-Agents classified per second of this thread's CPU time: `run`
/// classifies `per_run` User-Agents and is repeated for about `seconds` of
/// wall time. `None` without `schedstat`.
fn per_cpu_second(per_run: usize, seconds: f64, mut run: impl FnMut()) -> Option<f64> {
    run();
    let start = std::time::Instant::now();
    let cpu = thread_cpu_ns()?;
    let mut runs = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        run();
        runs += 1;
    }
    let used = thread_cpu_ns()?.saturating_sub(cpu);
    (used > 0).then(|| (runs as f64 * per_run as f64) / (used as f64 / 1e9))
}

fn main() {
    let Some(shared) = ua_corpus::shared("classification benchmark") else {
        return;
    };
    let regexes: ua_parser::Regexes<'_> =
        serde_saphyr::from_str(UAP_CORE_REGEXES).expect("embedded regexes parse");
    let reference = ua_parser::Extractor::try_from(regexes).expect("embedded regexes compile");
    let mix = mix(&shared, &reference);
    let bots = ua_corpus::test_bots();
    let classifier = Classifier::new(&bots, &[]).expect("test registry builds");

    let mut c = Criterion::default().configure_from_args();
    bench_uncached(&mut c, &mix, &classifier, &reference);
    let stream = zipf_stream(&mix, 200_000, 0.10);
    let distinct = stream.iter().collect::<HashSet<_>>().len();
    eprintln!(
        "zipf stream: {} requests, {distinct} distinct",
        stream.len()
    );
    let log = ua_corpus::log_user_agents(&shared);
    bench_cached(&mut c, &bots, &stream, &log);
    c.final_summary();

    // The same work by CPU time, which other jobs on the machine do not
    // inflate as they do wall time.
    cpu_rates(&mix, &classifier, &bots, &stream, &log);
}

/// The distinct User-Agents of a mix with a share `share` of crawlers:
/// all crawlers are kept, browsers are added to reach the share. Also the
/// counts of browsers and crawlers.
fn share_mix(mix: &Mix, share: f64) -> (Vec<&str>, usize, usize) {
    let n_crawlers =
        ((mix.browsers.len() as f64 * share / (1.0 - share)) as usize).min(mix.crawlers.len());
    let n_browsers = ((n_crawlers as f64 * (1.0 - share) / share) as usize).min(mix.browsers.len());
    let distinct: Vec<&str> = mix.browsers[..n_browsers]
        .iter()
        .chain(&mix.crawlers[..n_crawlers])
        .map(String::as_str)
        .collect();
    (distinct, n_browsers, n_crawlers)
}

/// Every distinct User-Agent of each mix once, without a cache, by
/// botwarden and by ua-parser's full extraction.
fn bench_uncached(
    c: &mut Criterion,
    mix: &Mix,
    classifier: &Classifier,
    reference: &ua_parser::Extractor<'_>,
) {
    for share in [0.05, 0.10, 0.20] {
        let (mut distinct, n_browsers, n_crawlers) = share_mix(mix, share);
        Xorshift::new(7).shuffle(&mut distinct);
        eprintln!(
            "uncached mix {:.0}%: {n_browsers} browsers + {n_crawlers} crawlers",
            share * 100.0
        );
        let mut g = c.benchmark_group(format!("uncached-{:.0}pct-crawlers", share * 100.0));
        g.sample_size(10);
        g.throughput(Throughput::Elements(distinct.len() as u64));
        g.bench_function("botwarden", |b| {
            b.iter(|| {
                for ua in &distinct {
                    black_box(classifier.classify_uncached(black_box(ua)));
                }
            });
        });
        g.bench_function("ua-parser-full", |b| {
            b.iter(|| {
                for ua in &distinct {
                    black_box(reference.extract(black_box(ua)));
                }
            });
        });
        g.finish();
    }
}

/// A classifier with a cache of 10,000 User-Agents.
fn cached_classifier(bots: &[ClassifierBot]) -> Classifier {
    Classifier::new(bots, &[])
        .expect("test registry builds")
        .with_cache(10_000)
}

/// The Zipf stream and the real log, through a cached classifier.
fn bench_cached(c: &mut Criterion, bots: &[ClassifierBot], stream: &[&str], log: &[String]) {
    let mut g = c.benchmark_group("cached");
    g.sample_size(10);
    g.throughput(Throughput::Elements(stream.len() as u64));
    g.bench_function("zipf-10pct-crawlers", |b| {
        let cached = cached_classifier(bots);
        b.iter(|| {
            for ua in stream {
                black_box(cached.classify(black_box(ua)));
            }
        });
    });
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function("apache-log", |b| {
        let cached = cached_classifier(bots);
        b.iter(|| {
            for ua in log {
                black_box(cached.classify(black_box(ua)));
            }
        });
    });
    g.finish();
}

/// Prints a rate of [`per_cpu_second`].
fn report(name: &str, rate: Option<f64>) {
    match rate {
        Some(r) => eprintln!("cpu-time {name}: {:.0} K UAs per CPU-second", r / 1e3),
        None => eprintln!("cpu-time {name}: no /proc/thread-self/schedstat"),
    }
}

/// Every workload again, in User-Agents per CPU-second.
fn cpu_rates(
    mix: &Mix,
    classifier: &Classifier,
    bots: &[ClassifierBot],
    stream: &[&str],
    log: &[String],
) {
    for share in [0.05, 0.10, 0.20] {
        let (distinct, _, _) = share_mix(mix, share);
        let rate = per_cpu_second(distinct.len(), 3.0, || {
            for ua in &distinct {
                black_box(classifier.classify_uncached(black_box(ua)));
            }
        });
        report(&format!("uncached {:.0}% crawlers", share * 100.0), rate);
    }
    for (name, set) in [
        ("browsers only", &mix.browsers),
        ("crawlers only", &mix.crawlers),
    ] {
        let rate = per_cpu_second(set.len(), 3.0, || {
            for ua in set {
                black_box(classifier.classify_uncached(black_box(ua)));
            }
        });
        report(&format!("uncached {name}"), rate);
    }
    let rate = per_cpu_second(mix.browsers.len(), 3.0, || {
        for ua in &mix.browsers {
            black_box(classifier.passes_prefilter(black_box(ua)));
        }
    });
    report("prefilter alone, browsers", rate);
    let cached = cached_classifier(bots);
    let rate = per_cpu_second(stream.len(), 3.0, || {
        for ua in stream {
            black_box(cached.classify(black_box(ua)));
        }
    });
    report("cached zipf 10% crawlers", rate);
    let cached = cached_classifier(bots);
    let rate = per_cpu_second(log.len(), 3.0, || {
        for ua in log {
            black_box(cached.classify(black_box(ua)));
        }
    });
    report("cached apache log", rate);
}
