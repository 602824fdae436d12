//! Large, realistic access logs for tests and benchmarks.
//!
//! Real combined-format lines are replayed with new client addresses
//! (from a fixed-size pool, so that the distinct addresses stay bounded
//! however many lines are made), times that advance steadily, and some
//! varied paths and sizes. Lines whose User-Agent names a crawler keep
//! their real address most of the time, so that verification sees
//! genuine crawlers as well as impostors. The output depends only on the
//! options: the same seed gives the same bytes.

use std::io::{self, Write};
use std::path::Path;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Lines to write.
    pub lines: u64,
    /// Distinct client addresses in the pool.
    pub ips: u32,
    /// Distinct query strings added to paths.
    pub queries: u32,
    /// Seed of the pseudo-random sequence.
    pub seed: u64,
    /// Unix time of the first line.
    pub start: i64,
    /// Seconds the log spans.
    pub span: i64,
    /// One line in this many is garbage (0 for none).
    pub garbage_every: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lines: 1_000_000,
            ips: 50_000,
            queries: 10_000,
            seed: 1,
            // 2026-01-01T00:00:00Z
            start: 1_767_225_600,
            span: 7 * 86_400,
            garbage_every: 0,
        }
    }
}

/// A real line, split into the parts the generator varies.
#[derive(Debug, Clone)]
pub struct Seed {
    ip: String,
    method_path_proto: (String, String, String),
    status: String,
    bytes: u64,
    referer: String,
    ua: String,
    crawler: bool,
}

/// Reads the combined-format lines of a file as seeds; other lines are
/// ignored.
pub fn seeds_from(path: &Path) -> io::Result<Vec<Seed>> {
    let text = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&text);
    Ok(text.lines().filter_map(seed).collect())
}

/// The seed lines the benchmarks use: the combined-format logs of the
/// shared corpus.
pub fn shared_seeds() -> io::Result<Vec<Seed>> {
    let dir = crate::shared("loggen", "corpus/logs")
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "../shared/corpus/logs is missing"))?
        .join("corpus/logs");
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    names.sort();
    for p in names {
        out.extend(seeds_from(&p)?);
    }
    Ok(out)
}

fn seed(line: &str) -> Option<Seed> {
    let parts: Vec<&str> = line.split('"').collect();
    if parts.len() < 7 {
        return None;
    }
    let ip = parts[0].split(' ').next()?.to_owned();
    ip.parse::<std::net::IpAddr>().ok()?;
    let mut req = parts[1].splitn(3, ' ');
    let method = req.next()?.to_owned();
    let path = req.next()?.to_owned();
    let proto = req.next().unwrap_or("HTTP/1.1").to_owned();
    let mut sb = parts[2].split_whitespace();
    let status = sb.next()?.to_owned();
    let bytes = sb.next()?.parse().unwrap_or(0);
    let ua = parts[5].to_owned();
    let lower = ua.to_ascii_lowercase();
    let crawler = ["bot", "spider", "crawl", "slurp"]
        .iter()
        .any(|w| lower.contains(w));
    Some(Seed {
        ip,
        method_path_proto: (method, path, proto),
        status,
        bytes,
        referer: parts[3].to_owned(),
        ua,
        crawler,
    })
}

/// A small, fast pseudo-random sequence (xorshift64*).
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Year, month (1–12), day from days since 1970-01-01.
fn civil(days: i64) -> (i64, usize, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m as usize, d)
}

fn pool_ip(rng_seed: u64, i: u32) -> String {
    let mut r = Rng(rng_seed ^ (u64::from(i) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let v = r.next();
    if i.is_multiple_of(20) {
        format!(
            "2001:db8:{:x}:{:x}::{:x}",
            (v >> 48) & 0xffff,
            (v >> 32) & 0xffff,
            v & 0xffff
        )
    } else {
        // Public-looking IPv4 from documentation-free space: 11.0.0.0 up.
        format!(
            "{}.{}.{}.{}",
            11 + (v >> 56) % 180,
            (v >> 48) & 0xff,
            (v >> 40) & 0xff,
            1 + (v >> 32) % 254
        )
    }
}

/// Writes `options.lines` lines made from `seeds` to `out`.
pub fn generate(seeds: &[Seed], options: &Options, out: &mut dyn Write) -> io::Result<()> {
    if seeds.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no seed lines"));
    }
    let mut rng = Rng(options.seed.max(1));
    let pool: Vec<String> = (0..options.ips.max(1))
        .map(|i| pool_ip(options.seed, i))
        .collect();
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let gap_ms = (options.span.max(1) * 1000) as u64 / options.lines.max(1);
    let mut t_ms: u64 = 0;
    let mut line = String::with_capacity(512);
    let mut date_cache: (i64, String) = (i64::MIN, String::new());
    for n in 0..options.lines {
        t_ms += rng.below(2 * gap_ms + 1);
        if options.garbage_every > 0 && (n + 1).is_multiple_of(options.garbage_every) {
            let junk = match rng.below(4) {
                0 => "\u{16}\u{3}\u{1}\u{0}garbage".to_owned(),
                1 => "not a log line at all".to_owned(),
                2 => String::new(),
                _ => "203.0.113.9 - - [01/Jan/2026:00:00:00 +0000] \"GET /trunc".to_owned(),
            };
            out.write_all(junk.as_bytes())?;
            out.write_all(b"\n")?;
            continue;
        }
        let s = &seeds[rng.below(seeds.len() as u64) as usize];
        let ip: &str = if s.crawler && rng.below(10) != 0 {
            &s.ip
        } else {
            &pool[rng.below(pool.len() as u64) as usize]
        };
        let unix = options.start + (t_ms / 1000) as i64;
        let day = unix.div_euclid(86_400);
        if date_cache.0 != day {
            let (y, m, d) = civil(day);
            date_cache = (day, format!("{d:02}/{}/{y}", MONTHS[m - 1]));
        }
        let secs = unix.rem_euclid(86_400);
        let (method, path, proto) = &s.method_path_proto;
        line.clear();
        use std::fmt::Write as _;
        let _ = write!(
            line,
            "{ip} - - [{}:{:02}:{:02}:{:02} +0000] \"{method} {path}",
            date_cache.1,
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        if options.queries > 0 && rng.below(3) == 0 {
            let sep = if path.contains('?') { '&' } else { '?' };
            let _ = write!(line, "{sep}v={}", rng.below(u64::from(options.queries)));
        }
        let bytes = s.bytes + rng.below(s.bytes / 10 + 1);
        let _ = writeln!(
            line,
            " {proto}\" {} {bytes} \"{}\" \"{}\"",
            s.status, s.referer, s.ua
        );
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_454), (2026, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }

    #[test]
    fn same_seed_same_bytes() {
        let seeds = vec![
            seed(r#"66.249.66.1 - - [17/May/2015:10:05:03 +0000] "GET / HTTP/1.1" 200 10 "-" "Googlebot/2.1""#)
                .expect("a combined line"),
            seed(r#"1.2.3.4 - - [17/May/2015:10:05:03 +0000] "GET /a HTTP/1.1" 404 0 "-" "Mozilla/5.0""#)
                .expect("a combined line"),
        ];
        let opts = Options {
            lines: 500,
            garbage_every: 50,
            ..Options::default()
        };
        let mut a = Vec::new();
        let mut b = Vec::new();
        generate(&seeds, &opts, &mut a).expect("generates");
        generate(&seeds, &opts, &mut b).expect("generates");
        assert_eq!(a, b);
        let text = String::from_utf8_lossy(&a);
        assert_eq!(text.lines().count(), 500);
        assert_eq!(text.lines().filter(|l| l.ends_with('"')).count(), 490);
        assert!(text.contains("66.249.66.1 - - [01/Jan/2026:"));
    }
}
