//! Throughput of the pipeline without DNS: read, parse, classify, verify by
//! published ranges, aggregate, on a generated combined log (real lines
//! replayed with varied addresses, times and paths; see
//! `botwarden_testdata::loggen`). One input, so one worker thread: the
//! figure is per core.
//!
//! `cargo bench -p botwarden-logs --bench analyze`

#![allow(missing_docs)]

use std::io::Write;
use std::sync::Arc;

use botwarden_logs::{AnalyzeOptions, Analyzer, FormatChoice, Input, LogFormat};
use botwarden_verify::{Classifier, RegistryBuilder, Verifier, VerifierConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const LINES: u64 = 500_000;

fn bench(c: &mut Criterion) {
    let Ok(seeds) = botwarden_testdata::loggen::shared_seeds() else {
        return;
    };
    let path = std::env::temp_dir().join(format!("botwarden-bench-{}.log", std::process::id()));
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        let options = botwarden_testdata::loggen::Options {
            lines: LINES,
            ..Default::default()
        };
        botwarden_testdata::loggen::generate(&seeds, &options, &mut f).expect("generate");
        f.flush().expect("flush");
    }
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(
        Classifier::for_registry(&registry)
            .expect("a classifier")
            .with_cache(100_000),
    );
    let verifier =
        Arc::new(Verifier::new(registry, VerifierConfig::offline()).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let analyzer = Analyzer::new(classifier, verifier, runtime.handle().clone());

    let mut group = c.benchmark_group("logs");
    group.sample_size(10);
    group.throughput(Throughput::Elements(LINES));
    for (name, format) in [
        (
            "analyze/combined",
            FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        ),
        ("analyze/auto", FormatChoice::Auto),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let a = analyzer.run(
                    vec![Input::Path(path.clone())],
                    AnalyzeOptions {
                        format: format.clone(),
                        threads: 1,
                        ..AnalyzeOptions::default()
                    },
                );
                assert_eq!(a.report.lines.parsed, LINES);
                a
            });
        });
    }
    let format = LogFormat::from_spec("combined").expect("a preset");
    let text = std::fs::read_to_string(&path).expect("read");
    group.bench_function("parse/combined", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for line in text.lines() {
                n += u64::from(format.parse(line).is_ok());
            }
            assert_eq!(n, LINES);
        });
    });
    group.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
