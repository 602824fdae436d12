//! The checker on a large file: a 500 KiB robots.txt with 10,000 rules in 20
//! groups (prefix and wildcard rules, allows and disallows), generated
//! deterministically. Measures the lints, the interpretation matrix, and
//! the whole `check` (lints + matrix + fixer with its equivalence proof).

#![allow(clippy::print_stderr)]

use std::fmt::Write as _;
use std::hint::black_box;

use botwarden_robots::{Analysis, Matrix, Profile, RobotsTxt, check, compare_fixed, fix};
use botwarden_testdata::Xorshift;
use criterion::Criterion;

/// One of `items`, drawn by `rng`.
fn pick<'a>(rng: &mut Xorshift, items: &[&'a str]) -> &'a str {
    items[(rng.next_u64() % items.len() as u64) as usize]
}

/// 10,000 rules in 20 groups, padded with comments to 500 KiB.
fn large_file() -> String {
    // Deterministic, so that every run checks the same file.
    let mut rng = Xorshift::new(0x9E37_79B9_7F4A_7C15);
    let words = [
        "shop", "help", "static", "api", "v1", "img", "docs", "search", "cart", "user",
    ];
    let mut out = String::from("# 10,000 rules in 20 groups\n");
    for g in 0..20 {
        out.push('\n');
        if g == 19 {
            out.push_str("User-agent: *\n");
        } else {
            let _ = writeln!(out, "User-agent: bot{}", char::from(b'a' + g));
        }
        for _ in 0..500 {
            let kind = if rng.next_u64().is_multiple_of(3) {
                "Allow"
            } else {
                "Disallow"
            };
            let mut path = String::new();
            for _ in 0..=rng.next_u64() % 4 {
                path.push('/');
                path.push_str(pick(&mut rng, &words));
            }
            let _ = write!(path, "{}", rng.next_u64() % 1000);
            match rng.next_u64() % 10 {
                0 => path.push_str("*.php$"),
                1 => path.push_str("?*sort="),
                _ => {}
            }
            let _ = writeln!(out, "{kind}: {path}");
        }
    }
    while out.len() < 500 * 1024 - 100 {
        out.push_str(
            "# padding to the size of a large real file ........................................\n",
        );
    }
    out
}

fn bench(c: &mut Criterion) {
    let body = large_file();
    let txt = RobotsTxt::parse(body.as_bytes());
    // The same file, for timing the command end to end (BENCHMARKS.md).
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/check-500kib-10000-rules.txt");
    if let Err(e) = std::fs::write(&out, &body) {
        eprintln!("check bench: cannot write {}: {e}", out.display());
    }
    eprintln!(
        "check bench: {} bytes, {} lines (written to {})",
        body.len(),
        txt.lines().len(),
        out.display()
    );
    let mut group = c.benchmark_group("check_500kib_10000_rules");
    group.sample_size(10);
    group.bench_function("parse", |b| {
        b.iter(|| RobotsTxt::parse(black_box(body.as_bytes())));
    });
    group.bench_function("lints", |b| b.iter(|| check(black_box(&txt))));
    group.bench_function("matrix", |b| {
        b.iter(|| Matrix::new(black_box(&txt), &Profile::ALL, &[]));
    });
    group.bench_function("fix_and_equivalence", |b| {
        b.iter(|| {
            let fixed = fix(black_box(&txt));
            let proof = compare_fixed(&txt, &fixed);
            (fixed, proof)
        });
    });
    group.bench_function("whole_check", |b| {
        b.iter(|| {
            // As `robots check` does: one analysis, each profile compiled
            // once, shared by the lints, the matrix and the proof.
            let txt = RobotsTxt::parse(black_box(body.as_bytes()));
            let analysis = Analysis::new(&txt);
            let fixed = fix(&txt);
            (
                analysis.check_bounded(),
                analysis.matrix(&Profile::ALL, &[]),
                analysis.compare_fixed(&fixed),
            )
        });
    });
    group.finish();
}

/// Runs the group with criterion's command-line options.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
